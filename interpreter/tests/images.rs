//! Image kernels: reads with and without samplers, writes, queries and constant samplers,
//! at -O0 and -O2, and image texel accesses reported to observers.

mod common;
use common::*;
use shadowcl_interpreter::image::{dtype, order, sampler};
use shadowcl_interpreter::*;

const SRC: &str = r#"
kernel void copy3d(read_only image3d_t src, write_only image2d_t dst, global int *dims) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    int x = get_global_id(0), y = get_global_id(1);
    // Sum the two slices of the 3-D image into the 2-D one.
    uint4 a = read_imageui(src, s, (int4)(x, y, 0, 0));
    uint4 b = read_imageui(src, (int4)(x, y, 1, 0));
    write_imageui(dst, (int2)(x, y), a + b);
    if (x == 0 && y == 0) {
        int4 d = get_image_dim(src);
        dims[0] = d.x; dims[1] = d.y; dims[2] = d.z;
        dims[3] = get_image_width(dst);
        dims[4] = get_image_height(dst);
        dims[5] = get_image_channel_order(src) == CLK_RGBA;
        dims[6] = get_image_channel_data_type(dst) == CLK_UNSIGNED_INT8;
        // Out of range with CLK_ADDRESS_CLAMP: the border colour (0, 0, 0, 0).
        dims[7] = read_imageui(src, s, (int4)(-1, 0, 0, 0)).w;
    }
}
"#;

// A second module: llvm-spirv-15 asserts at -O0 when one module holds both kernels (two
// functions with kernel-scope constant samplers).
const SRC2: &str = r#"
kernel void sample(read_only image2d_t img, sampler_t s, global float2 *at, global float4 *out) {
    const sampler_t lin = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    int i = get_global_id(0);
    out[i] = read_imagef(img, s, at[i]);
    out[i + 4] = read_imagef(img, lin, at[i] / 2.0f);
}
"#;

fn image(desc: ImageDesc, bytes: &[u8]) -> ArgValue {
    let b = Buffer::new(desc.byte_len().unwrap() as usize).unwrap();
    b.write(0, bytes).unwrap();
    ArgValue::Image { buffer: b, desc }
}

#[test]
fn reads_writes_and_queries_2d_and_3d_images() {
    let rgba_u8 = ImageFormat {
        order: order::RGBA,
        data_type: dtype::UNSIGNED_INT8,
    };
    for opt in ["-O0", "-O2"] {
        let p = program(SRC, opt);
        let src = ImageDesc::packed(ImageDim::D3, rgba_u8, [2, 2, 2], 1).unwrap();
        let texels: Vec<u8> = (0..32).collect();
        let dst = ImageDesc::packed(ImageDim::D2, rgba_u8, [2, 2, 1], 1).unwrap();
        let src_arg = image(src, &texels);
        let dst_arg = image(dst, &[]);
        let dims = buf_i32(&[0; 8]);
        run(
            &p,
            &launch(
                "copy3d",
                2,
                [2, 2, 1],
                [1, 1, 1],
                vec![src_arg, dst_arg.clone(), arg(&dims)],
            ),
        );
        let ArgValue::Image { buffer, .. } = &dst_arg else {
            unreachable!()
        };
        let want: Vec<u8> = (0..16).map(|i| i + (i + 16)).collect();
        assert_eq!(read_bytes(buffer), want, "{opt}");
        assert_eq!(read_i32(&dims), [2, 2, 2, 2, 2, 1, 1, 0], "{opt}");
    }
}

#[test]
fn samplers_from_arguments_and_from_source() {
    let rgba_f = ImageFormat {
        order: order::RGBA,
        data_type: dtype::FLOAT,
    };
    let desc = ImageDesc::packed(ImageDim::D2, rgba_f, [2, 2, 1], 1).unwrap();
    let texels: Vec<u8> = [0f32, 1.0, 2.0, 3.0]
        .iter()
        .flat_map(|v| [*v, *v, *v, 1.0])
        .flat_map(f32::to_le_bytes)
        .collect();
    for opt in ["-O0", "-O2"] {
        let p = program(SRC2, opt);
        let at = buf_f32(&[0.5, 0.5, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0]);
        let out = buf_f32(&[0.0; 32]);
        let s = ArgValue::Sampler(sampler::FILTER_LINEAR);
        run(
            &p,
            &launch(
                "sample",
                1,
                [4, 1, 1],
                [1, 1, 1],
                vec![image(desc, &texels), s, arg(&at), arg(&out)],
            ),
        );
        let red: Vec<f32> = read_f32(&out).chunks(4).map(|c| c[0]).collect();
        // Unnormalized linear (piglit's sampler.cl), then the constant normalized
        // repeat sampler at half the coordinates: (0.25, 0.25) etc. in a 2x2 image.
        assert_eq!(red[..4], [0.0, 0.5, 1.5, 1.0], "{opt}");
        assert_eq!(red[4], 0.0, "{opt}");
        // u = 0.5*2 = 1 → texels 0 and 1 at weight 0.5; v = 0.25*2 → row 0.
        assert_eq!(red[5], 0.5, "{opt}");
    }
}

#[test]
fn image_accesses_are_reported_as_accesses_of_the_image_allocation() {
    let rgba_u8 = ImageFormat {
        order: order::RGBA,
        data_type: dtype::UNSIGNED_INT8,
    };
    let p = program(SRC, "-O2");
    let src = ImageDesc::packed(ImageDim::D3, rgba_u8, [2, 2, 2], 1).unwrap();
    let dst = ImageDesc::packed(ImageDim::D2, rgba_u8, [2, 2, 1], 1).unwrap();
    let src_arg = image(src, &[0; 32]);
    let dst_arg = image(dst, &[]);
    let (ArgValue::Image { buffer: sb, .. }, ArgValue::Image { buffer: db, .. }) =
        (&src_arg, &dst_arg)
    else {
        unreachable!()
    };
    let (sid, did) = (sb.id(), db.id());
    let dims = buf_i32(&[0; 8]);
    let rec = Recorder::default();
    Device::new(1)
        .run(
            &p,
            &launch(
                "copy3d",
                2,
                [2, 2, 1],
                [1, 1, 1],
                vec![src_arg, dst_arg, arg(&dims)],
            ),
            &Schedule::default(),
            &rec,
        )
        .unwrap();
    let ev = rec.take();
    // (count, bytes) of the accesses of `kind` to `alloc`.
    let count = |alloc: AllocId, kind: AccessKind| {
        ev.iter()
            .filter_map(|e| match e {
                Ev::Access {
                    alloc: a,
                    kind: k,
                    size,
                    offset,
                    ..
                } if *a == alloc && *k == kind => {
                    assert_eq!(offset % 4, 0, "a texel starts at a multiple of its size");
                    Some(*size as usize)
                }
                _ => None,
            })
            .fold((0, 0), |(n, b), s| (n + 1, b + s))
    };
    // 4 work-items read 2 texels, one extra read of work-item 0's border texel touches no
    // memory; each writes one texel. A texel of 4 one-byte channels moves as one access
    // (one work-item's access of its 4 bytes, as the checkers should see it).
    assert_eq!(count(sid, AccessKind::Read), (4 * 2, 4 * 2 * 4));
    assert_eq!(count(did, AccessKind::Write), (4, 4 * 4));
    assert!(!ev.iter().any(|e| matches!(e, Ev::Fault(_))));
}

const SRC3: &str = r#"
kernel void arrays(read_only image1d_array_t a1, write_only image2d_array_t a2,
                   read_only image1d_buffer_t b, global int *out) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    int x = get_global_id(0);
    // Layer 1 of the 1-D array (float coordinates: the layer is rounded), and layer 7
    // (clamped to the last layer, 2).
    int4 v = read_imagei(a1, s, (float2)(x + 0.5f, 0.6f));
    int4 w = read_imagei(a1, s, (int2)(x, 7));
    write_imagei(a2, (int4)(x, 1, 2, 0), v + w);
    out[x] = read_imagei(b, x).x;
    if (x == 0) {
        out[4] = get_image_array_size(a1);
        out[5] = get_image_array_size(a2);
        out[6] = get_image_width(b);
    }
}
"#;

#[test]
fn image_arrays_and_buffer_images() {
    let i32f = ImageFormat {
        order: order::RGBA,
        data_type: dtype::SIGNED_INT32,
    };
    let r32 = ImageFormat {
        order: order::R,
        data_type: dtype::SIGNED_INT32,
    };
    for opt in ["-O0", "-O2"] {
        let p = program(SRC3, opt);
        // 1-D array: 4 texels × 3 layers; texel value = 100 * layer + x in every channel.
        let a1 = ImageDesc::packed(ImageDim::D1Array, i32f, [4, 1, 1], 3).unwrap();
        let bytes: Vec<u8> = (0..3)
            .flat_map(|l| (0..4).flat_map(move |x| [100 * l + x; 4]))
            .flat_map(i32::to_le_bytes)
            .collect();
        let a2 = ImageDesc::packed(ImageDim::D2Array, i32f, [4, 2, 3], 3).unwrap();
        let b = ImageDesc::packed(ImageDim::D1Buffer, r32, [4, 1, 1], 1).unwrap();
        let a2_arg = image(a2, &[]);
        let out = buf_i32(&[0; 8]);
        let bb: Vec<u8> = [7i32, -8, 9, -10]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        run(
            &p,
            &launch(
                "arrays",
                1,
                [4, 1, 1],
                [4, 1, 1],
                vec![image(a1, &bytes), a2_arg.clone(), image(b, &bb), arg(&out)],
            ),
        );
        let ArgValue::Image { buffer, .. } = &a2_arg else {
            unreachable!()
        };
        let got: Vec<i32> = read_bytes(buffer)
            .chunks(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // Texel (x, 1) of layer 2: 16 ints per row, 2 rows per layer.
        for x in 0..4 {
            let at = (2 * 2 * 4 + 4 + x) * 4;
            let want = (100 + x as i32) + (200 + x as i32);
            assert_eq!(got[at..at + 4], [want; 4], "{opt} x={x}");
        }
        assert_eq!(got.iter().filter(|v| **v != 0).count(), 16, "{opt}");
        assert_eq!(read_i32(&out)[..7], [7, -8, 9, -10, 3, 3, 4], "{opt}");
    }
}
