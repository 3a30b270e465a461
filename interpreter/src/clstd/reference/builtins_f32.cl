#define F(e) o[i*NO + (j++)] = (e)
#define NO 100
#define NI 16
__kernel void t(__global const float *x, __global const float *y, __global const int *k, __global float *o, __global int *oi) {
  int i = get_global_id(0);
  float a = x[i], b = y[i]; int n = k[i];
  int j = 0;
  F(sin(a)); F(cos(a)); F(pow(fabs(a), b)); F(fmax(a,b)); F(fmin(a,b)); F(ldexp(a, n)); F(pown(a, n)); F(rootn(fabs(a), n|1));
  F(hypot(a,b)); F(atan2(a,b)); F(fmod(a,b)); F(remainder(a,b));
  float ip; F(fract(a, &ip)); F(ip); int e; F(frexp(a, &e)); oi[i*NI+0]=e; F(modf(a, &ip)); F(ip);
  int q; F(remquo(a,b,&q)); oi[i*NI+1]=q; float c; F(sincos(a,&c)); F(c);
  F(mix(a,b,0.25f)); F(smoothstep(-1.0f, 2.0f, a)); F(step(b, a)); F(sign(a)); F(clamp(a, -1.0f, 1.0f)); F(degrees(a)); F(radians(a));
  float4 v = (float4)(a, b, a*b, 1.0f); float4 w = (float4)(b, a, 2.0f, -a);
  F(dot(v, w)); F(length(v)); F(distance(v,w)); float4 nv = normalize(v); F(nv.x); F(nv.w);
  float4 cr = cross(v, w); F(cr.x); F(cr.y); F(cr.z); F(cr.w);
  float3 v3 = (float3)(a, b, 1.5f), w3 = (float3)(2.0f, -b, a); float3 c3 = cross(v3, w3); F(c3.x); F(c3.y); F(c3.z);
  F(fast_length(v)); F(fast_distance(v, w)); float4 fn = fast_normalize(w); F(fn.y);
  F(convert_float(convert_int_sat_rte(a*1e9f)));
  uint4 m = (uint4)(n&7, 3, 5, 9);
  float4 s = shuffle2(v, w, m); F(s.x); F(s.y); F(s.z); F(s.w);
  float4 s1 = shuffle(v, m); F(s1.x); F(s1.w);
  F(bitselect(a, b, as_float(0xffff0000u)));
  F(native_sqrt(fabs(a))); F(half_exp(a*0.1f)); F(tgamma(b)); F(lgamma(b)); F(erf(a)); F(cbrt(a)); F(nextafter(a, b));
  F(exp10(a*0.1f)); F(log1p(fabs(a))); F(sinpi(a)); F(cospi(a)); F(tanpi(a)); F(maxmag(a,b)); F(minmag(a,b)); F(fdim(a,b));
  F(fma(a,b,1.0f)); F(mad(a,b,1.0f)); F(rsqrt(fabs(b))); F(asinpi(clamp(a*0.2f,-1.0f,1.0f))); F(acospi(clamp(b*0.3f,-1.0f,1.0f)));
  F(atan2pi(a,b)); F(logb(a)); F(rint(a*2.0f)); F(round(a*2.0f)); F(trunc(a)); F(copysign(a,b)); F(powr(fabs(a), b)); F(exp2(b)); F(log2(fabs(a)));
  F(expm1(b)); F(asinh(a)); F(acosh(fabs(a)+1.0f)); F(atanh(clamp(b*0.3f,-0.9f,0.9f))); F(erfc(b)); F(sinh(b)); F(cosh(b)); F(tanh(a));
  float lg; int sg; F(lgamma_r(b, &sg)); oi[i*NI+13] = sg;
  F(native_divide(a, b)); F(native_recip(b)); F(half_log(fabs(a)+0.5f)); F(nan((uint)n) == nan((uint)n) ? 1.0f : 0.0f);
  F(convert_float_rtz(n*123457)); F(convert_float_rtp((long)n * 0x123456789abcdefL)); F(convert_float_rtn((ulong)(n+11) * 0x1234567890abcdefUL));
  F((float)j);
  oi[i*NI+2] = convert_int_rtn(a*3.0f); oi[i*NI+3] = convert_uchar_sat(b*100.0f); oi[i*NI+4] = ilogb(a); oi[i*NI+5]=clz(n);
  oi[i*NI+6]=popcount(n); oi[i*NI+7]= rotate(n, 5); oi[i*NI+8] = mul_hi(n, 0x7654321); oi[i*NI+9] = add_sat(n, 0x7fffff00);
  oi[i*NI+10] = abs_diff(n, -5); oi[i*NI+11] = mad24(n, 3, 7);
  int4 sel = select((int4)(1,2,3,4), (int4)(5,6,7,8), (int4)(n, -n, 0, -1)); oi[i*NI+12]= sel.x*1000+sel.y*100+sel.z*10+sel.w;
  oi[i*NI+14] = upsample((short)n, (ushort)(n*3)); oi[i*NI+15] = convert_short_sat_rtp(a * 20000.0f) + (int)hadd((char)n, (char)100) + (int)sub_sat((uchar)n, (uchar)200) * 1000;
}
