// A buffer of structs { float x, y; int id; uint flags; } read and written in place.
// kernel: particles
// global: 64   local: 16
// arg: buffer int 256 fill=random(90,-1000,1000) name=raw
// compare: exact raw
typedef struct { float x, y; int id; uint flags; } particle;
__kernel void particles(__global particle *ps) {
  int i = get_global_id(0);
  particle p = ps[i];
  p.x = (float)(as_int(p.x) % 100) * 0.25f;
  p.y = (float)(as_int(p.y) % 50) - p.x;
  p.id = i * 3 + (p.id & 1);
  p.flags = (p.flags << 4) | (uint)i;
  ps[i] = p;
}
