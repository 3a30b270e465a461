import pyopencl as cl, numpy as np, itertools, sys
plat=[p for p in cl.get_platforms() if 'Portable' in p.name or 'pocl' in p.name.lower()][0]
dev=plat.get_devices()[0]
ctx=cl.Context([dev]); q=cl.CommandQueue(ctx)
un=("acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt cos cosh cospi erf erfc exp exp2 exp10 expm1 "
    "lgamma log log2 log10 log1p logb rsqrt sin sinh sinpi tan tanh tanpi tgamma sqrt ceil floor rint round trunc").split()
bi="atan2 atan2pi pow powr hypot fmod remainder fdim nextafter copysign fmax fmin maxmag minmag".split()
ii="pown rootn ldexp".split()
xs=[-3.7,-2.5,-1.0,-0.5,-1e-3,0.0,-0.0,0.3,0.5,0.9,1.0,1.5,2.0,7.25,10.0,88.5,123456.789,1e-40,1e30,float('inf'),float('-inf'),float('nan')]
ys=[-2.0,-0.5,0.0,0.5,1.0,2.5,3.0,-7.0,1e10,float('inf')]
ns=[-3,-2,-1,0,1,2,3,5,7,100]
src=["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"]
for T in ("float","double"):
    for f in un: src.append(f"__kernel void {f}_{T}(__global const {T}*x, __global {T}*y){{int i=get_global_id(0); y[i]={f}(x[i]);}}")
    for f in bi: src.append(f"__kernel void {f}_{T}(__global const {T}*x, __global const {T}*z, __global {T}*y){{int i=get_global_id(0); y[i]={f}(x[i],z[i]);}}")
    for f in ii: src.append(f"__kernel void {f}_{T}(__global const {T}*x, __global const int*z, __global {T}*y){{int i=get_global_id(0); y[i]={f}(x[i],z[i]);}}")
    src.append(f"__kernel void ilogb_{T}(__global const {T}*x, __global int*y){{int i=get_global_id(0); y[i]=ilogb(x[i]);}}")
prg=cl.Program(ctx,"\n".join(src)).build()
mf=cl.mem_flags
def run(name, arrs, outdt):
    bufs=[cl.Buffer(ctx, mf.READ_ONLY|mf.COPY_HOST_PTR, hostbuf=a) for a in arrs]
    out=np.zeros(len(arrs[0]), outdt); ob=cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    getattr(prg,name)(q,(len(out),),None,*bufs,ob); cl.enqueue_copy(q,out,ob); q.finish(); return out
for T,dt,ut in (("float",np.float32,np.uint32),("double",np.float64,np.uint64)):
    w=32 if T=="float" else 64
    x=np.array(xs,dt)
    for f in un:
        y=run(f"{f}_{T}",[x],dt)
        for a,b in zip(x.view(ut),y.view(ut)): print(f,w,hex(a),0,hex(b))
    pairs=list(itertools.product(xs,ys))
    x2=np.array([p[0] for p in pairs],dt); z2=np.array([p[1] for p in pairs],dt)
    for f in bi:
        y=run(f"{f}_{T}",[x2,z2],dt)
        for a,c,b in zip(x2.view(ut),z2.view(ut),y.view(ut)): print(f,w,hex(a),hex(c),hex(b))
    pairs=list(itertools.product(xs,ns))
    x3=np.array([p[0] for p in pairs],dt); z3=np.array([p[1] for p in pairs],np.int32)
    for f in ii:
        y=run(f"{f}_{T}",[x3,z3],dt)
        for a,c,b in zip(x3.view(ut),z3.view(np.uint32),y.view(ut)): print(f,w,hex(a),hex(c),hex(b))
    y=run(f"ilogb_{T}",[x],np.int32)
    for a,b in zip(x.view(ut),y.view(np.uint32)): print("ilogb",w,hex(a),0,hex(b))
