// A small tokenizer state machine over bytes, driven by a loop and a switch.
// kernel: tokens
// global: 8   local: 8
// arg: buffer uchar 256 fill=random(84,32,122) name=text
// arg: buffer int 24 fill=zero name=out
// compare: exact out
__kernel void tokens(__global const uchar *text, __global int *out) {
  int i = get_global_id(0);
  int state = 0, words = 0, digits = 0, other = 0;
  for (int k = 0; k < 32; k++) {
    uchar c = text[i * 32 + k];
    int cls = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? 1 : (c >= '0' && c <= '9') ? 2 : 0;
    switch (state) {
    case 0:
      if (cls == 1) { state = 1; words++; }
      else if (cls == 2) { state = 2; digits++; }
      else other++;
      break;
    case 1:
      if (cls != 1) { state = 0; other += cls == 0; }
      break;
    case 2:
      if (cls != 2) { state = cls == 1 ? 1 : 0; words += cls == 1; }
      break;
    }
  }
  out[3 * i] = words;
  out[3 * i + 1] = digits;
  out[3 * i + 2] = other;
}
