// The last work-item of each group reads the first element of the next group's range,
// which that group overwrites: a read-write race across work-groups.
// kernel: halo
// global: 64   local: 16
// arg: buffer int 65 fill=iota name=data
// expect: data-race race=read-write memory=global scope=inter-group buffer=data
__kernel void halo(__global int *data) {
  int i = get_global_id(0);
  int right = data[i + 1];
  data[i] = right + 1;
}
