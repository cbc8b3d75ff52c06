//! The benchmark's preconditions, run with the tests: every library agrees with this
//! project on every cell it is timed on, the shapes have the sizes the issue asks for, and
//! pilota's compact protocol still fails its checks (if a pilota release fixes it, its
//! compact cells should be timed, and this test says so).

use thrift_benches::cases::{self, Library, Op, Proto, ShapeKind};
use thrift_benches::data::Values;

#[test]
fn every_library_agrees_on_every_cell_but_pilota_compact() {
    let values: &'static Values = Box::leak(Box::new(Values::new()));
    for proto in Proto::ALL {
        for shape in ShapeKind::ALL {
            for op in Op::ALL {
                for lib in Library::ALL {
                    let id = format!("{}/{}/{}/{}", proto.name(), op.name(), shape.name(), lib.name());
                    let prepared = cases::prepare(values, lib, shape, proto, op);
                    match (lib, proto, prepared.routine) {
                        (Library::Pilota, Proto::Compact, Ok(_)) => {
                            panic!("{id}: pilota's compact now passes; time it")
                        }
                        (Library::Pilota, Proto::Compact, Err(_)) => {}
                        (_, _, Ok(mut routine)) => routine(),
                        (_, _, Err(e)) => panic!("{id}: {e}"),
                    }
                }
            }
        }
    }
}

#[test]
fn the_shapes_have_the_sizes_of_the_issue() {
    let values: &'static Values = Box::leak(Box::new(Values::new()));
    let size = |shape| cases::prepare(values, Library::Ours, shape, Proto::Binary, Op::Encode).bytes;
    assert!((120..=180).contains(&size(ShapeKind::Small)), "small: {}", size(ShapeKind::Small));
    assert!((5_000..=8_000).contains(&size(ShapeKind::Medium)), "medium: {}", size(ShapeKind::Medium));
    assert!((180_000..=260_000).contains(&size(ShapeKind::Large)), "large: {}", size(ShapeKind::Large));
}
