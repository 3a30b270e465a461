// atomic_or / atomic_and / atomic_xor build bit sets independent of order.
// kernel: sets
// global: 64   local: 16
// arg: buffer uint 3 fill=values(0,0xffffffff,0) name=bits
// compare: exact bits
__kernel void sets(__global uint *bits) {
  uint i = get_global_id(0);
  atomic_or(&bits[0], 1u << (i % 32));
  atomic_and(&bits[1], ~(1u << ((i * 7) % 32)));
  atomic_xor(&bits[2], 1u << (i % 32));
}
