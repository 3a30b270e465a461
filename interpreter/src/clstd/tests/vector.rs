//! Geometric functions, shuffles and selects.

use super::*;

/// Runs a vector instruction with float operands of width `w`.
fn runv(op: CLOp, w: u8, xs: &[&[f64]], n: usize) -> Vec<f64> {
    let f = Fmt::of(w).expect("width");
    let lanes: Vec<Vec<u64>> = xs
        .iter()
        .map(|v| v.iter().map(|&x| f.encode(x)).collect())
        .collect();
    let args: Vec<LaneArgs<'_>> = lanes
        .iter()
        .map(|l| LaneArgs {
            elem: Elem::Float(w),
            lanes: l,
        })
        .collect();
    let mut out = vec![0u64; n];
    let r = eval(op as u32, Elem::Float(w), &args, &mut out, &mut []);
    assert_eq!(r, Ok(Produced::Result), "{op:?}");
    out.iter().map(|&b| f.to_f64(b)).collect()
}

#[test]
fn clstd_geometric() {
    use CLOp::*;
    for w in [32u8, 64] {
        assert_eq!(
            runv(cross, w, &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]], 3),
            [0.0, 0.0, 1.0]
        );
        assert_eq!(
            runv(cross, w, &[&[1.0, 2.0, 3.0, 9.0], &[4.0, 5.0, 6.0, 9.0]], 4),
            [-3.0, 6.0, -3.0, 0.0]
        );
        assert_eq!(runv(length, w, &[&[3.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(length, w, &[&[1.0, 2.0, 2.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(fast_length, w, &[&[0.0, -3.0, 4.0]], 1), [5.0]);
        assert_eq!(runv(length, w, &[&[0.0, -INF, 4.0]], 1), [INF]);
        assert!(runv(length, w, &[&[0.0, NAN, 4.0]], 1)[0].is_nan());
        assert_eq!(
            runv(distance, w, &[&[1.0, 1.0, 1.0], &[4.0, 5.0, 1.0]], 1),
            [5.0]
        );
        assert_eq!(
            runv(fast_distance, w, &[&[1.0, 1.0], &[4.0, 5.0]], 1),
            [5.0]
        );
        let r = runv(normalize, w, &[&[3.0, 0.0, -4.0, 0.0]], 4);
        let f = Fmt::of(w).expect("width");
        assert_eq!(r, [f.round_f64(0.6), 0.0, f.round_f64(-0.8), 0.0]);
        assert_eq!(
            runv(fast_normalize, w, &[&[0.0, 0.0, 0.0]], 3),
            [0.0, 0.0, 0.0]
        );
        let r = runv(normalize, w, &[&[INF, 1.0, -INF]], 3);
        let h = f.round_f64(1.0 / 2f64.sqrt());
        assert_eq!(r, [h, 0.0, -h]);
        assert!(runv(normalize, w, &[&[NAN, 1.0]], 2)
            .iter()
            .all(|x| x.is_nan()));
        // Scalar geometric forms.
        assert_eq!(runv(length, w, &[&[-2.0]], 1), [2.0]);
        assert_eq!(runv(normalize, w, &[&[-2.0]], 1), [-1.0]);
    }
    // No overflow or underflow in the intermediate sum of squares.
    let p = |k: i32| 2f64.powi(k);
    assert_eq!(
        runv(length, 32, &[&[3.0 * p(100), 4.0 * p(100)]], 1),
        [5.0 * p(100)]
    );
    assert_eq!(
        runv(length, 32, &[&[3.0 * p(-140), 4.0 * p(-140)]], 1),
        [5.0 * p(-140)]
    );
    assert_eq!(
        runv(length, 64, &[&[3.0 * p(1000), 4.0 * p(1000)]], 1),
        [5.0 * p(1000)]
    );
    assert_eq!(runv(length, 64, &[&[3e-320, 4e-320]], 1), [5e-320]);
    let r = runv(normalize, 64, &[&[1e-320, 0.0]], 2);
    assert_eq!(r, [1.0, 0.0]);
    // A double2 whose length is past DBL_MAX still normalizes (the CTS's geom_normalize
    // input) to within a few ulp of the exact answer.
    let big = [
        f64::from_bits(0x7fe7_a8a9_5dca_630c),
        -f64::from_bits(0x7fe6_de26_69ea_47d3),
    ];
    let r = runv(normalize, 64, &[&big], 2);
    let want = [
        f64::from_bits(0x3fe7_0241_64e0_bcf9),
        -f64::from_bits(0x3fe6_3d4e_d233_be64),
    ];
    for (g, w) in r.iter().zip(want) {
        assert!(
            (g - w).abs() <= 4.0 * f64::EPSILON,
            "normalize {big:?} = {r:?}"
        );
    }
    let r = runv(normalize, 32, &[&[3.0e38, 3.0e38]], 2);
    assert!(
        (r[0] - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-7,
        "{r:?}"
    );
    // cross needs 3 or 4 lanes; distance needs equal lane counts.
    let a = [0u64; 2];
    let b = [0u64; 3];
    let mut out = [0u64; 2];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
    ];
    assert!(
        eval(cross as u32, Elem::Float(32), &args, &mut out, &mut [])
            .is_err_and(|t| t.contains("cross"))
    );
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &b,
        },
    ];
    assert!(eval(
        distance as u32,
        Elem::Float(32),
        &args,
        &mut out[..1],
        &mut []
    )
    .is_err());
}

#[test]
fn clstd_shuffle() {
    use CLOp::*;
    let x = [10u64, 20, 30, 40];
    let y = [50u64, 60, 70, 80];
    let m = [3u64, 2, 1, 0, 7, 0xffff_fff9];
    let mut out = [0u64; 6];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m,
        },
    ];
    assert_eq!(
        eval(shuffle as u32, Elem::Int(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out, [40, 30, 20, 10, 40, 20]);
    let m2 = [0u64, 4, 7, 9, 15, 0xffff_fff9];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &x,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &y,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m2,
        },
    ];
    assert_eq!(
        eval(shuffle2 as u32, Elem::Int(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out, [10, 50, 80, 20, 80, 20]); // 0xffff_fff9 % 8 = 1
                                               // shuffle2 of two 2-lane float vectors into 8 lanes.
    let xf = [F32.encode(1.5), F32.encode(2.5)];
    let yf = [F32.encode(-1.0), F32.encode(-2.0)];
    let m8 = [3u64, 2, 1, 0, 4, 5, 6, 7];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &xf,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &yf,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &m8,
        },
    ];
    let mut out8 = [0u64; 8];
    assert_eq!(
        eval(shuffle2 as u32, Elem::Float(32), &args, &mut out8, &mut []),
        Ok(Produced::Result)
    );
    let got: Vec<f64> = out8.iter().map(|&b| F32.to_f64(b)).collect();
    assert_eq!(got, [-2.0, -1.0, 2.5, 1.5, 1.5, 2.5, -1.0, -2.0]);
}

#[test]
fn clstd_select() {
    use CLOp::*;
    // select: vectors test the MSB of c, scalars test c != 0.
    let a = [1u64, 2, 3, 4];
    let b = [5u64, 6, 7, 8];
    let c = [1u64, 0x8000_0000, 0xffff_ffff, 0];
    let args = [
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &c,
        },
    ];
    let mut out4 = [0u64; 4];
    assert_eq!(
        eval(select as u32, Elem::Int(32), &args, &mut out4, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out4, [1, 6, 7, 4]);
    let mut out1 = [0u64; 1];
    assert_eq!(
        eval(select as u32, Elem::Int(32), &args, &mut out1, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out1, [5]); // scalar: c = 1 is true
                           // select on 8-bit masks with float operands: the MSB of each 8-bit lane.
    let af = [F32.encode(1.0); 2];
    let bf = [F32.encode(2.0); 2];
    let c8 = [0x80u64, 0x7f];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &af,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &bf,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &c8,
        },
    ];
    let mut out2 = [0u64; 2];
    assert_eq!(
        eval(select as u32, Elem::Float(32), &args, &mut out2, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out2, [bf[0], af[1]]);
}

#[test]
fn clstd_bitselect() {
    use CLOp::*;
    // bitselect: bits of b where c is set, of a elsewhere; floats by bit pattern.
    let a = [F32.encode(1.0)];
    let b = [F32.encode(-3.0)];
    let c = [0x8000_0000u64];
    let args = [
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Float(32),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(32),
            lanes: &c,
        },
    ];
    let mut out = [0u64];
    assert_eq!(
        eval(bitselect as u32, Elem::Float(32), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(F32.to_f64(out[0]), -1.0);
    let a = [0xf0u64];
    let b = [0x0fu64];
    let c = [0x3cu64];
    let args = [
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &a,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &b,
        },
        LaneArgs {
            elem: Elem::Int(8),
            lanes: &c,
        },
    ];
    assert_eq!(
        eval(bitselect as u32, Elem::Int(8), &args, &mut out, &mut []),
        Ok(Produced::Result)
    );
    assert_eq!(out[0], 0xcc);
}
