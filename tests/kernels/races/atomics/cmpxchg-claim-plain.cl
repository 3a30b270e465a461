// Twin of cmpxchg-claim.cl where the claim is a plain check-then-store.
// kernel: claim
// global: 64   local: 16
// arg: buffer int 8 fill=values(-1) name=slots
// twin: cmpxchg-claim.cl
// schedule-dependent: which items store depends on what each read, so the racing writes differ between schedules
// expect: data-race memory=global buffer=slots
__kernel void claim(__global int *slots) {
  int i = get_global_id(0);
  if (slots[i % 8] == -1)
    slots[i % 8] = i;
}
