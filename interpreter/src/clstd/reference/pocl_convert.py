import pyopencl as cl, numpy as np, itertools
plat=[p for p in cl.get_platforms() if 'Portable' in p.name or 'pocl' in p.name.lower()][0]
ctx=cl.Context([plat.get_devices()[0]]); q=cl.CommandQueue(ctx)
ints={'char':(np.int8,8,1),'uchar':(np.uint8,8,0),'short':(np.int16,16,1),'ushort':(np.uint16,16,0),
      'int':(np.int32,32,1),'uint':(np.uint32,32,0),'long':(np.int64,64,1),'ulong':(np.uint64,64,0)}
flts={'float':(np.float32,32),'double':(np.float64,64)}
modes=['','_rte','_rtz','_rtp','_rtn']
fvals=[0.0,-0.0,0.5,1.5,2.5,-2.5,-0.5,0.49999997,-1.0,127.5,128.0,-128.5,-129.0,255.5,256.0,32767.5,-32768.7,65535.4,65536.0,
       2147483520.0,2147483648.0,-2147483904.0,4294967040.0,4294967296.0,9.2233715e18,9.223372e18,-9.223373e18,1.8446743e19,1.9e19,
       1e30,-1e30,float('inf'),float('-inf'),float('nan'),1e-40,-3.9,123456.7,16777217.0,1.00000001]
ivals=[0,1,-1,127,-128,255,256,-129,32767,-32768,65535,65536,16777217,-16777217,2147483647,-2147483648,4294967295,
       (1<<53)+1,-(1<<53)-1,(1<<62)+12345,-(1<<63),(1<<63)-1,(1<<64)-1,(1<<63)+(1<<40)+1,0x1234567890abcdef]
src=["#pragma OPENCL EXTENSION cl_khr_fp64 : enable"]
jobs=[]
for S in list(flts)+list(ints):
  for D in list(flts)+list(ints):
    if S==D: continue
    for sat in ('','_sat'):
      if sat and D in flts: continue
      for m in modes:
        if S in ints and D in ints and m: continue
        name=f"k_{S}_{D}{sat}{m}"
        src.append(f"__kernel void {name}(__global const {S}*x, __global {D}*y){{int i=get_global_id(0); y[i]=convert_{D}{sat}{m}(x[i]);}}")
        jobs.append((name,S,D,sat,m))
prg=cl.Program(ctx,"\n".join(src)).build()
mf=cl.mem_flags
def bits(arr):
  u={1:np.uint8,2:np.uint16,4:np.uint32,8:np.uint64}[arr.dtype.itemsize]; return arr.view(u)
for name,S,D,sat,m in jobs:
  if S in flts:
    x=np.array(fvals,flts[S][0]); sw=flts[S][1]; sk='F'
  else:
    dt,sw,sg=ints[S]; sk='S' if sg else 'U'
    x=np.array([v & ((1<<sw)-1) for v in ivals],dtype={8:np.uint8,16:np.uint16,32:np.uint32,64:np.uint64}[sw]).view(dt)
  if D in flts: ddt,dw=flts[D]; dk='F'
  else: ddt,dw,dg=ints[D]; dk='S' if dg else 'U'
  y=np.zeros(len(x),ddt)
  xb=cl.Buffer(ctx,mf.READ_ONLY|mf.COPY_HOST_PTR,hostbuf=x); yb=cl.Buffer(ctx,mf.WRITE_ONLY,y.nbytes)
  getattr(prg,name)(q,(len(x),),None,xb,yb); cl.enqueue_copy(q,y,yb); q.finish()
  for a,b in zip(bits(x),bits(y)):
    print(sk,sw,dk,dw,1 if sat else 0,m.strip('_') or '-',hex(int(a)),hex(int(b)))
