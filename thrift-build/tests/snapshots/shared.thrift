/** Types another file includes. */
namespace rs shared

/** Who did it. */
struct Audit {
  1: required string who
  2: optional i64 at_millis
}

/** The parent of every service here. */
service Base {
  /** Is it up? */
  bool ping()
}
