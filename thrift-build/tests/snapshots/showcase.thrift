/**
 * One of everything the generator does, for the snapshot test.
 */
include "shared.thrift"

namespace * showcase
namespace java com.example.showcase

const i32 MAX_ITEMS = 100
const double RATIO = 0.75
const string GREETING = "hello"
const list<string> COLORS = ["red", "green"]
const map<string, i32> LIMITS = {"small": 1, "large": MAX_ITEMS}
const Status DEFAULT_STATUS = Status.ACTIVE
const set<double> THRESHOLDS = [0.5, 1]

typedef i64 UserId
typedef map<string, list<UserId>> Groups

/** The state of an account. */
enum Status {
  /** Just made. */
  NEW,
  ACTIVE = 5,
  SUSPENDED,
  /** Another name for NEW. */
  FRESH = 0,
}

/** An account. */
struct Account {
  1: required UserId id
  /** Shown to others. */
  2: string displayName = "guest"
  3: optional string email
  4: Status status = Status.NEW
  5: i32 retries = 3
  6: double score = 1
  7: list<string> tags = ["new"]
  8: Groups groups
  9: shared.Audit created
  10: binary avatar
  11: bool type = true
  12: set<double> weights
}

/** A tree: children in a list need no box, the parent does. */
struct Node {
  1: i32 value
  2: list<Node> children
  3: Node parent
  4: optional Node next
}

/** One of two. */
union Contact {
  1: string email
  2: i64 phone
}

/** Thrown when an account is missing. */
exception NotFound {
  1: UserId id
  2: string message
}

/** Thrown when the caller may not. */
exception Denied {
  1: string reason
}

/** A machine's share, as Apache Aurora's `Resource`: a union holding a double. */
union Resource {
  1: double numCpus
  2: i64 ramMb
  3: string namedPort
}

/**
 * Held in sets and as map keys, so it is ordered: its doubles are `OrderedDouble`s and its
 * collections BTree ones.
 */
struct Placement {
  1: set<Resource> resources
  2: map<Resource, double> weights
  3: list<double> scores = [0.5, 1.5]
}

/** Sets of structs and struct keys, nested. */
struct Cluster {
  1: set<Placement> placements
  2: map<Placement, list<Resource>> spares
}

/** A uuid written in GUID braces, as Apache's compiler takes it. */
const uuid CLUSTER_ID = "{00112233-4455-6677-8899-aaBBccDDeeFF}"

/** Accounts, by id. */
service Accounts extends shared.Base {
  /** Finds one. */
  Account get(1: UserId id) throws (1: NotFound err)
  /** Finds one, if allowed. */
  Account getChecked(1: UserId id, 2: string token) throws (1: NotFound notFound, 2: Denied denied)
  void touch(1: UserId id)
  oneway void log(1: string line)
  list<Account> listAll(1: i32 limit, 2: i32 offset)
  void match(1: string self)
}
