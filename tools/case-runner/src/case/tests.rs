//! Header parsing and deterministic fills.

use super::parse::encode_scalar;
use super::*;

#[test]
fn parses_header() {
    let src = "// A comment: free text\n// kernel: k\n// global: 64   local: 32\n\
               // arg: buffer float 64 fill=iota name=out\n// arg: local float 32\n\
               // arg: scalar int 7\n// arg: scalar struct(char,int) 1,2\n\
               // expect: data-race race=read-write memory=local\n\
               // compare: ulp=4 out\n__kernel void k() {}\n";
    let c = parse(Path::new("x.cl"), src.to_string()).map_err(|e| e.to_string());
    let c = match c {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(c.launches[0].global, vec![64]);
    assert_eq!(c.launches[0].local, Some(vec![32]));
    assert_eq!(c.launches[0].args.len(), 4);
    assert!(matches!(&c.launches[0].args[3], Arg::Scalar(b) if b.len() == 8));
    assert_eq!(
        encode_scalar("struct(int2,float)", "1,2,3").map(|b| b.len()),
        Ok(16)
    );
    assert_eq!(
        encode_scalar("struct(char,double)", "1,2").map(|b| b.len()),
        Ok(16)
    );
    assert_eq!(encode_scalar("float3", "1,2,3").map(|b| b.len()), Ok(16));
    assert_eq!(c.buffers[0].name, "out");
    let ex = c.expects.unwrap_or_default();
    assert_eq!(
        ex[0].fields.get("race").map(String::as_str),
        Some("read-write")
    );
    assert_eq!(c.compares[0].mode, CompareMode::Ulp(4));
}

#[test]
fn random_fill_is_deterministic() {
    let b = BufferDecl {
        name: "b".into(),
        elem: Scalar::Float,
        count: 8,
        fill: Fill::Random {
            seed: 3,
            range: Some((0.0, 1.0)),
        },
        image: None,
        access: KernelAccess::ReadWrite,
    };
    assert_eq!(b.initial().ok(), b.initial().ok());
}
