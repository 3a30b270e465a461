// Vector relational results (-1 / 0 per lane), any/all, and select with a vector mask.
// kernel: vcmp
// global: 32   local: 32
// arg: buffer float 128 fill=random(58,-1,1) name=a
// arg: buffer float 128 fill=random(59,-1,1) name=b
// arg: buffer int 160 fill=zero name=masks
// arg: buffer float 128 fill=zero name=picked
// compare: exact masks picked
__kernel void vcmp(__global const float *a, __global const float *b, __global int *masks, __global float *picked) {
  int i = get_global_id(0);
  float4 x = vload4(i, a), y = vload4(i, b);
  int4 lt = isless(x, y);
  vstore4(lt, i, masks);
  masks[128 + i] = any(lt) + 2 * all(lt) + 4 * any(x == y);
  vstore4(select(x, y, lt), i, picked);
}
