mod common;
use common::*;
use shadowcl_interpreter::*;

const OPTS: [&str; 2] = ["-O0", "-O2"];

#[test]
fn conversions_and_math() {
    let src = r#"
    __kernel void c(__global const float *f, __global int *i, __global float *o, __global uchar *u) {
        int k = get_global_id(0);
        float x = f[k];
        i[k * 4 + 0] = (int)x;
        i[k * 4 + 1] = convert_int_rte(x);
        i[k * 4 + 2] = convert_int_sat(x * 1e10f);
        i[k * 4 + 3] = (int)(uint)(uchar)(k * 100);
        o[k * 4 + 0] = (float)k / 4.0f;
        o[k * 4 + 1] = sqrt(fabs(x));
        o[k * 4 + 2] = fmax(x, 0.0f) + mad(x, 2.0f, 1.0f);
        o[k * 4 + 3] = (float)(double)x;
        u[k] = convert_uchar_sat(x * 100.0f);
    }"#;
    let input = [1.5f32, -2.5, 3.7, 0.0];
    for opt in OPTS {
        let p = program(src, opt);
        let (f, i, o, u) = (
            buf_f32(&input),
            buf_i32(&[0; 16]),
            buf_f32(&[0.0; 16]),
            buf_bytes(&[0; 4]),
        );
        run(
            &p,
            &launch(
                "c",
                1,
                [4, 1, 1],
                [4, 1, 1],
                vec![arg(&f), arg(&i), arg(&o), arg(&u)],
            ),
        );
        let iv = read_i32(&i);
        let ov = read_f32(&o);
        for k in 0..4 {
            let x = input[k];
            assert_eq!(iv[k * 4], x as i32, "{opt} trunc {x}");
            assert_eq!(iv[k * 4 + 1], x.round_ties_even() as i32, "{opt} rte {x}");
            let sat = if x > 0.0 {
                i32::MAX
            } else if x < 0.0 {
                i32::MIN
            } else {
                0
            };
            assert_eq!(iv[k * 4 + 2], sat, "{opt} sat {x}");
            assert_eq!(iv[k * 4 + 3], ((k * 100) as u8) as i32, "{opt}");
            assert_eq!(ov[k * 4], k as f32 / 4.0);
            assert_eq!(ov[k * 4 + 1], x.abs().sqrt());
            assert_eq!(ov[k * 4 + 2], x.max(0.0) + (x * 2.0 + 1.0));
            assert_eq!(ov[k * 4 + 3], x);
        }
        assert_eq!(read_bytes(&u), vec![150, 0, 255, 0], "{opt}");
    }
}

#[test]
fn half_loads_and_stores() {
    let src = r#"
    __kernel void h(__global const half *in, __global half *out, __global float *f) {
        int k = get_global_id(0);
        float x = vload_half(k, in);
        f[k] = x;
        vstore_half(x * 2.0f, k, out);
        float4 v = vload_half4(0, in);
        if (k == 0) vstore_half4(v + (float4)(1.0f), 1, out);
    }"#;
    let vals = [1.0f32, 0.5, -3.0, 65504.0];
    let halfs: Vec<u8> = vals
        .iter()
        .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
        .collect();
    for opt in OPTS {
        let p = program(src, opt);
        let (i, o, f) = (buf_bytes(&halfs), buf_bytes(&[0; 16]), buf_f32(&[0.0; 4]));
        run(
            &p,
            &launch(
                "h",
                1,
                [4, 1, 1],
                [4, 1, 1],
                vec![arg(&i), arg(&o), arg(&f)],
            ),
        );
        assert_eq!(read_f32(&f), vals.to_vec(), "{opt}");
        let ob = read_bytes(&o);
        let out: Vec<f32> = ob
            .chunks(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect();
        assert_eq!(&out[..4], &[2.0, 1.0, -6.0, f32::INFINITY], "{opt}");
        assert_eq!(&out[4..], &[2.0, 1.5, -2.0, 65504.0], "{opt}");
    }
}

#[test]
fn async_work_group_copy_copies_once_per_group() {
    let src = r#"
    __kernel void a(__global const int *in, __global int *out) {
        __local int tile[16];
        event_t e = async_work_group_copy(tile, in + get_group_id(0) * 16, 16, 0);
        wait_group_events(1, &e);
        int l = get_local_id(0);
        out[get_global_id(0)] = tile[15 - l] * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t e2 = async_work_group_copy(out + get_group_id(0) * 16 + 64, tile, 16, 0);
        wait_group_events(1, &e2);
    }"#;
    for opt in OPTS {
        let p = program(src, opt);
        let input: Vec<i32> = (0..64).collect();
        let (i, o) = (buf_i32(&input), buf_i32(&[0; 128]));
        let rec = Recorder::default();
        let l = launch("a", 1, [64, 1, 1], [16, 1, 1], vec![arg(&i), arg(&o)]);
        Device::new(1)
            .run(&p, &l, &Schedule::default(), &rec)
            .unwrap();
        let out = read_i32(&o);
        for g in 0..4 {
            for l in 0..16 {
                assert_eq!(out[g * 16 + l], (g * 16 + 15 - l) as i32 * 2, "{opt}");
                assert_eq!(out[64 + g * 16 + l], (g * 16 + l) as i32, "{opt}");
            }
        }
        // One copy per group: 16 global reads of `in` per group, not 16 * 16.
        let reads = rec
            .take()
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Ev::Access {
                        kind: AccessKind::Read,
                        space: AddressSpace::Global,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(reads, 64, "{opt}");
    }
}

#[test]
fn kernel_calls_kernel_and_private_arrays() {
    let src = r#"
    __kernel void inner(__global int *a, int v) { a[get_global_id(0)] += v; }
    __kernel void outer(__global int *a) {
        int tmp[8];
        for (int i = 0; i < 8; i++) tmp[i] = i * i;
        int s = 0;
        for (int i = 0; i < 8; i++) s += tmp[(i + get_global_id(0)) & 7];
        a[get_global_id(0)] = s;
        inner(a, 1000);
    }"#;
    for opt in OPTS {
        let p = program(src, opt);
        let a = buf_i32(&[0; 4]);
        run(&p, &launch("outer", 1, [4, 1, 1], [2, 1, 1], vec![arg(&a)]));
        assert_eq!(read_i32(&a), vec![1140; 4], "{opt}");
    }
}

#[test]
fn local_accesses_are_reported_relative_to_the_local_allocation() {
    let src = r#"
    __kernel void k(__local int *l, __global int *g) {
        __local int mine[4];
        mine[get_local_id(0)] = 1;
        l[get_local_id(0) + 1] = 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        g[get_global_id(0)] = mine[get_local_id(0)] + l[get_local_id(0) + 1];
    }"#;
    let p = program(src, "-O2");
    let g = buf_i32(&[0; 4]);
    let rec = Recorder::default();
    let l = launch(
        "k",
        1,
        [4, 1, 1],
        [4, 1, 1],
        vec![ArgValue::Local(64), arg(&g)],
    );
    Device::new(1)
        .run(&p, &l, &Schedule::default(), &rec)
        .unwrap();
    assert_eq!(read_i32(&g), vec![3; 4]);
    let ev = rec.take();
    match &ev[0] {
        Ev::LaunchStart { locals, args, .. } => {
            assert_eq!(
                locals,
                &vec![("mine".to_string(), 16), ("l".to_string(), 64)]
            );
            assert_eq!(args, &vec!["l".to_string(), "g".to_string()]);
        }
        e => panic!("first event {e:?}"),
    }
    let local_writes: Vec<(AllocId, u64)> = ev
        .iter()
        .filter_map(|e| match e {
            Ev::Access {
                space: AddressSpace::Local,
                kind: AccessKind::Write,
                alloc,
                offset,
                local: 1,
                ..
            } => Some((*alloc, *offset)),
            _ => None,
        })
        .collect();
    assert_eq!(
        local_writes,
        vec![(AllocId::local(0), 4), (AllocId::local(1), 8)]
    );
    assert!(matches!(ev.last(), Some(Ev::LaunchEnd)));
}

/// Work-item functions asked for a dimension past the NDRange's answer 1 for sizes and counts
/// and 0 for ids and offsets (OpenCL C 6.15.1; the CTS's work_item_functions_out_of_range*),
/// whether the dimension is a constant (the SPIR-V translator extracts component 4 of the
/// 3-component builtin vector) or known only at run time (a dynamic extract).
#[test]
fn work_item_functions_past_the_last_dimension() {
    let src = r#"
    __kernel void dims(__global const int *in, __global uint *out) {
        int far = in[0];
        __global uint *p = out + 16 * get_global_id(0);
        p[0] = get_global_size(far);
        p[1] = get_global_id(far);
        p[2] = get_local_size(far);
        p[3] = get_local_id(far);
        p[4] = get_num_groups(far);
        p[5] = get_group_id(far);
        p[6] = get_global_offset(far);
        p[7] = get_num_groups(far) + get_local_size(far);
        p[8] = get_global_size(4);
        p[9] = get_global_id(3);
        p[10] = get_local_size(7);
        p[11] = get_local_id(3);
        p[12] = get_num_groups(5);
        p[13] = get_group_id(3);
        p[14] = get_global_offset(3);
        p[15] = get_global_size(1) + 10 * get_global_id(2);
    }"#;
    for opt in OPTS {
        for far in [3, 5, 1000] {
            let p = program(src, opt);
            let (input, out) = (buf_i32(&[far]), buf_i32(&[-1; 64]));
            run(
                &p,
                &launch(
                    "dims",
                    1,
                    [4, 1, 1],
                    [2, 1, 1],
                    vec![arg(&input), arg(&out)],
                ),
            );
            let got = read_i32(&out);
            for item in got.chunks(16) {
                assert_eq!(
                    item,
                    [1, 0, 1, 0, 1, 0, 0, 2, 1, 0, 1, 0, 1, 0, 0, 1],
                    "{opt} far={far}"
                );
            }
        }
    }
}

/// A copy given an event joins it: it returns that event (OpenCL C 6.15.10), so that one
/// wait completes both copies; a copy given none returns its own.
#[test]
fn an_async_copy_given_an_event_returns_it() {
    #[derive(Default)]
    struct Events {
        copies: std::sync::Mutex<Vec<u64>>,
        waits: std::sync::Mutex<Vec<Vec<u64>>>,
    }
    impl Observer for Events {
        type Group = ();
        fn group_start(&self, _group: &GroupInfo) {}
        fn group_copy(&self, _g: &mut (), c: &GroupCopy<'_>) {
            if c.first {
                self.copies.lock().unwrap().push(c.event);
            }
        }
        fn group_wait(&self, _g: &mut (), w: &GroupWait<'_>) {
            if w.item.local_linear == 0 {
                self.waits.lock().unwrap().push(w.events.to_vec());
            }
        }
    }
    let src = r#"
    __kernel void k(__global const int *in, __global int *out) {
        __local int a[16], b[16], c[16];
        event_t e = async_work_group_copy(a, in, 16, 0);
        async_work_group_copy(b, in + 16, 16, e);
        event_t f = async_work_group_copy(c, in + 32, 16, 0);
        wait_group_events(1, &e);
        wait_group_events(1, &f);
        int l = get_local_id(0);
        out[l] = a[l] + b[l] + c[l];
    }"#;
    for opt in OPTS {
        let p = program(src, opt);
        let input: Vec<i32> = (0..48).collect();
        let (i, o) = (buf_i32(&input), buf_i32(&[0; 16]));
        let obs = Events::default();
        let l = launch("k", 1, [16, 1, 1], [16, 1, 1], vec![arg(&i), arg(&o)]);
        Device::new(1)
            .run(&p, &l, &Schedule::default(), &obs)
            .unwrap();
        let out = read_i32(&o);
        for (l, v) in out.iter().enumerate() {
            assert_eq!(*v, 3 * l as i32 + 48, "{opt}");
        }
        let copies = obs.copies.into_inner().unwrap();
        assert_eq!(copies.len(), 3, "{opt}");
        assert_eq!(
            copies[0], copies[1],
            "{opt}: the second copy joins the first's event"
        );
        assert_ne!(copies[0], copies[2], "{opt}: the third has its own");
        assert!(copies.iter().all(|&e| e != 0), "{opt}");
        let waits = obs.waits.into_inner().unwrap();
        assert_eq!(waits, [vec![copies[0]], vec![copies[2]]], "{opt}");
    }
}
