import pyopencl as cl, numpy as np, itertools
plat=[p for p in cl.get_platforms() if 'Portable' in p.name or 'pocl' in p.name.lower()][0]
ctx=cl.Context([plat.get_devices()[0]]); q=cl.CommandQueue(ctx)
T={'char':(np.int8,8,1),'uchar':(np.uint8,8,0),'short':(np.int16,16,1),'ushort':(np.uint16,16,0),
   'int':(np.int32,32,1),'uint':(np.uint32,32,0),'long':(np.int64,64,1),'ulong':(np.uint64,64,0)}
U={8:np.uint8,16:np.uint16,32:np.uint32,64:np.uint64}
un=['abs','clz','ctz','popcount']
bi=['abs_diff','add_sat','sub_sat','hadd','rhadd','max','min','mul_hi','rotate','mul24']
tri=['clamp','mad_hi','mad_sat','mad24']
up={'char':'uchar','short':'ushort','int':'uint','uchar':'uchar','ushort':'ushort','uint':'uint'}
src=[]
for t in T:
    ut='u'+t if not t.startswith('u') else t
    for f in un:
        rt = ut if f=='abs' else t
        src.append(f"__kernel void {f}_{t}(__global const {t}*a, __global {rt}*y){{int i=get_global_id(0); y[i]={f}(a[i]);}}")
    for f in bi:
        if f=='mul24' and T[t][1]!=32: continue
        rt = ut if f=='abs_diff' else t
        src.append(f"__kernel void {f}_{t}(__global const {t}*a, __global const {t}*b, __global {rt}*y){{int i=get_global_id(0); y[i]={f}(a[i],b[i]);}}")
    for f in tri:
        if f=='mad24' and T[t][1]!=32: continue
        src.append(f"__kernel void {f}_{t}(__global const {t}*a, __global const {t}*b, __global const {t}*c, __global {t}*y){{int i=get_global_id(0); y[i]={f}(a[i],b[i],c[i]);}}")
    if T[t][1] < 64:
        wide={'char':'short','uchar':'ushort','short':'int','ushort':'uint','int':'long','uint':'ulong'}[t]
        src.append(f"__kernel void upsample_{t}(__global const {t}*a, __global const {up[t]}*b, __global {wide}*y){{int i=get_global_id(0); y[i]=upsample(a[i],b[i]);}}")
prg=cl.Program(ctx,"\n".join(src)).build(options="-cl-std=CL2.0")
mf=cl.mem_flags
def vals(w,s):
    m=(1<<w)-1
    v=[0,1,m,1<<(w-1),(1<<(w-1))-1,2,3,0x5555555555555555&m,7,(1<<(w-1))+5, 0x1234&m]
    return v
def run(name,arrs,odt,n):
    bufs=[cl.Buffer(ctx,mf.READ_ONLY|mf.COPY_HOST_PTR,hostbuf=a) for a in arrs]
    y=np.zeros(n,odt); yb=cl.Buffer(ctx,mf.WRITE_ONLY,y.nbytes)
    getattr(prg,name)(q,(n,),None,*bufs,yb); cl.enqueue_copy(q,y,yb); q.finish(); return y
for t,(dt,w,s) in T.items():
    V=vals(w,s); ud=U[w]
    mk=lambda xs: np.array(xs,dtype=ud).view(dt)
    for f in un:
        y=run(f"{f}_{t}",[mk(V)],ud,len(V))
        for a,r in zip(V,y): print(f,w,s,hex(a),0,0,hex(int(r)))
    P=list(itertools.product(V,V))
    for f in bi:
        if f=='mul24' and w!=32: continue
        PP=[p for p in P if f!='mul24' or all((x if not s else (x-(1<<w) if x>>(w-1) else x)) in range(-(1<<23) if s else 0, 1<<23 if s else 1<<24) for x in p)]
        y=run(f"{f}_{t}",[mk([p[0] for p in PP]),mk([p[1] for p in PP])],ud,len(PP))
        for p,r in zip(PP,y): print(f,w,s,hex(p[0]),hex(p[1]),0,hex(int(r)))
    P3=list(itertools.product(V,V,V))
    for f in tri:
        if f=='mad24' and w!=32: continue
        PP=P3
        if f=='clamp':
            sx=lambda x: x-(1<<w) if s and x>>(w-1) else x
            PP=[p for p in P3 if sx(p[1])<=sx(p[2])]
        if f=='mad24':
            PP=[p for p in P3 if all((x-(1<<w) if s and x>>(w-1) else x) in range(-(1<<23) if s else 0, 1<<23 if s else 1<<24) for x in p[:2])]
        y=run(f"{f}_{t}",[mk([p[0] for p in PP]),mk([p[1] for p in PP]),mk([p[2] for p in PP])],ud,len(PP))
        for p,r in zip(PP,y): print(f,w,s,hex(p[0]),hex(p[1]),hex(p[2]),hex(int(r)))
    if w<64:
        y=run(f"upsample_{t}",[mk([p[0] for p in P]),np.array([p[1] for p in P],dtype=ud)],U[2*w],len(P))
        for p,r in zip(P,y): print('upsample',w,s,hex(p[0]),hex(p[1]),0,hex(int(r)))
