# What `thrift_core::Idl` exports for the types of tests/tests/idl_export.rs, written by
# hand: the test compares the two token by token (whitespace and `#` comments aside).

// Declarations no Rust type carries, from `Idl::namespace`, `typedef` and `constant`.
namespace py exported
namespace java com.example.exported

typedef map<string, i64> Counters

const i32 MAX_FRIENDS = 500


/**
 * How an account stands.
 */
enum Status {
  /**
   * Can sign in.
   */
  Active = 1
  Banned = 2
  // The `Unknown(i32)` variant is Rust's, not the schema's.
}

// A constant of a derived enum: the value's name, as IDL spells it.
const Status DEFAULT_STATUS = Status.Active

const list<string> GREETINGS = ["hi", "hello"]

/**
 * A user's id.
 */
typedef i64 UserId

union Contact {
  1: string email
  2: i64 phone
}

// One definition per instantiation of the generic `Page<T>`.
struct Page_string {
  1: list<string> items
  2: bool more
}

struct Page_UserId {
  1: list<UserId> items
  2: bool more
}

/**
 * Refused, with the reason.
 */
exception Denied {
  1: string reason
}

/**
 * One account.
 *
 * Both lines of this comment reach the IDL.
 */
struct Account {
  1: required UserId userId
  /**
   * Shown to others.
   */
  2: string displayName = "guest \"g\""
  3: list<i32> lucky = [1, 2]
  4: double score = -1.5
  5: Status status
  6: optional Contact contact
  7: Page_string names
  8: Page_UserId friends
  9: optional Denied denied
  /**
   * Defaults that are values, not literals: each as the IDL spells it.
   */
  10: Status fallback = Status.Banned
  11: Page_string firstPage = {"items": ["x"], "more": true}
  12: Contact reach = {"email": "a@example.com"}
  13: map<string, list<Status>> byTag = {"a": [Status.Active]}
  /**
   * A `with` field: on the wire, and so in the IDL, as milliseconds.
   */
  14: i64 timeout = 30000
  // `cache` is `skip`: not in the schema.
}
