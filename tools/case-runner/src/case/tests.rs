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
        sub: None,
    };
    assert_eq!(b.initial().ok(), b.initial().ok());
}

#[test]
fn parses_sub_buffers_inside_their_parent() {
    let case = |args: &str| {
        let src = format!("// kernel: k\n// global: 8\n{args}__kernel void k() {{}}\n");
        parse(Path::new("x.cl"), src).map_err(|e| e.to_string())
    };
    let c = case(
        "// arg: buffer int 256 fill=iota name=all\n// arg: sub all 32 64 name=dst\n\
         // arg: sub all 0 64 name=src flags=read-only\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let dst = &c.buffers[1];
    assert_eq!(
        (dst.sub, dst.count, dst.elem, dst.bytes()),
        (
            Some(SubRegion {
                parent: 0,
                offset: 32
            }),
            64,
            Scalar::Int,
            256
        )
    );
    assert_eq!(
        dst.initial(),
        Ok(None),
        "a sub-buffer writes no data of its own"
    );
    assert_eq!(c.buffers[2].access, KernelAccess::ReadOnly);
    assert_eq!(c.launches[0].args.len(), 3);
    for (bad, why) in [
        (
            "// arg: buffer int 16 name=all\n// arg: sub all 8 9\n",
            "not inside",
        ),
        (
            "// arg: buffer int 16 name=all\n// arg: sub all 0 0\n",
            "not inside",
        ),
        ("// arg: sub none 0 4\n", "no earlier buffer"),
        (
            "// arg: buffer int 16 name=all\n// arg: sub all 0\n",
            "sub PARENT",
        ),
        (
            "// arg: buffer int 16 name=all\n// arg: sub all 0 8 name=s\n// arg: sub s 0 4\n",
            "not a buffer",
        ),
    ] {
        match case(bad) {
            Ok(_) => panic!("accepted {bad:?}"),
            Err(e) => assert!(e.contains(why), "{bad:?}: {e}"),
        }
    }
}

#[test]
fn host_commands_are_steps_on_named_buffers() {
    let src = "// command: write in\n// kernel: k\n// global: 16\n\
               // arg: buffer int 16 name=in\n// arg: buffer int 16 name=out\n\
               // command: copy in out\n// after: 0, 1\n// command: map-unmap out\n\
               // expect: none\n__kernel void k() {}\n";
    let c = match parse(Path::new("x.cl"), src.to_string()) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let steps: Vec<Option<HostCommand>> = c.launches.iter().map(|l| l.command.clone()).collect();
    assert_eq!(
        steps,
        [
            Some(HostCommand::Write(0)),
            None,
            Some(HostCommand::Copy(0, 1)),
            Some(HostCommand::MapUnmap(1))
        ]
    );
    assert_eq!(c.launches[2].after, vec![0, 1]);
    let bad = |body: &str| {
        let src = format!("// kernel: k\n// global: 16\n// arg: buffer int 16 name=a\n{body}\n__kernel void k() {{}}\n");
        parse(Path::new("x.cl"), src).err().map(|e| e.msg)
    };
    assert!(bad("// command: read nothing").is_some_and(|m| m.contains("no buffer `nothing`")));
    assert!(bad("// command: shred a").is_some_and(|m| m.contains("read NAME")));
    assert!(bad("// command: read a\n// global: 4").is_some_and(|m| m.contains("no sizes")));
    let image = "// arg: image2d float 4 4 name=img\n// command: ";
    assert!(bad(&format!("{image}read img")).is_none());
    assert!(bad(&format!("{image}fill img")).is_some_and(|m| m.contains("is an image")));
}
