//! What the Rust of each type can be: which traits it can derive, which fields must be
//! boxed to end a recursion, which must be `Option` to have a value when absent.
//!
//! - `Eq`, `Hash`, `PartialOrd + Ord` are derived where every field allows them: a `double`
//!   allows none, a `HashMap`/`HashSet` only `Eq`. Computed as a greatest fixpoint, so a
//!   recursive struct keeps what its other fields allow. A struct held (at any depth) in a
//!   set element or map key has BTree collections and `OrderedDouble` doubles, so it has
//!   them all: every key type Thrift allows has a Rust collection.
//! - A field whose type leads back to its own struct without passing through a container
//!   (`RecList & next`, `CoRec`/`CoRec2`) is `Box`ed; through a `list`, `set` or `map` it
//!   needs nothing, the container already allocates.
//! - `Default`, a least fixpoint: a struct has one when each field is optional, has an IDL
//!   default, or has a type with one. A default-requiredness field without a value when
//!   absent (a recursive one: its default would be infinite) is generated as `Option<T>`.

use std::collections::{HashMap, HashSet};

use crate::config::{MapType, SetType};
use crate::resolve::{Def, DefId, Program, Requiredness, StructKind, Type};

/// Which of the comparison traits a type implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub eq: bool,
    pub hash: bool,
    pub ord: bool,
}

impl Caps {
    const ALL: Caps = Caps { eq: true, hash: true, ord: true };
    const NONE: Caps = Caps { eq: false, hash: false, ord: false };

    fn and(self, other: Caps) -> Caps {
        Caps { eq: self.eq && other.eq, hash: self.hash && other.hash, ord: self.ord && other.ord }
    }
}

/// How a field is held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repr {
    /// `Box<T>`: it leads back to its struct.
    pub boxed: bool,
    /// `Option<T>` although not `optional` in the IDL.
    pub forced_optional: bool,
}

/// Which collection a `set` or `map` becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collection {
    BTree,
    Hash,
}

pub struct Analysis {
    /// Structs that are (or are inside) a set element or map key: their own sets and maps
    /// are BTree ones whatever the config, so they can be ordered.
    key_structs: HashSet<DefId>,
    caps: HashMap<DefId, Caps>,
    defaults: HashMap<DefId, bool>,
    /// For a union with a `Default`, the member it defaults to.
    pub union_default: HashMap<DefId, usize>,
    reprs: HashMap<(DefId, usize), Repr>,
    map_type: MapType,
    set_type: SetType,
}

/// Every struct reachable from a set element or map key type, through containers and
/// fields.
fn key_structs(program: &Program) -> HashSet<DefId> {
    fn reach(program: &Program, ty: &Type, out: &mut HashSet<DefId>) {
        match program.true_type(ty) {
            Type::List(e) | Type::Set(e) => reach(program, e, out),
            Type::Map(k, v) => {
                reach(program, k, out);
                reach(program, v, out);
            }
            Type::Struct(id) if out.insert(*id) => {
                if let Some(s) = program.struct_def(*id) {
                    for f in &s.fields {
                        reach(program, &f.ty, out);
                    }
                }
            }
            _ => {}
        }
    }
    fn keys(program: &Program, ty: &Type, out: &mut HashSet<DefId>) {
        match program.true_type(ty) {
            Type::List(e) => keys(program, e, out),
            Type::Set(e) => reach(program, e, out),
            Type::Map(k, v) => {
                reach(program, k, out);
                keys(program, v, out);
            }
            _ => {}
        }
    }
    let mut out = HashSet::new();
    for file in &program.files {
        for def in &file.definitions {
            match def {
                Def::Struct(s) => s.fields.iter().for_each(|f| keys(program, &f.ty, &mut out)),
                Def::Typedef(t) => keys(program, &t.ty, &mut out),
                Def::Const(c) => keys(program, &c.ty, &mut out),
                Def::Service(s) => {
                    for f in &s.functions {
                        f.args.iter().for_each(|a| keys(program, &a.ty, &mut out));
                        if let Some(r) = &f.returns {
                            keys(program, r, &mut out);
                        }
                    }
                }
                Def::Enum(_) => {}
            }
        }
    }
    out
}

fn structs(program: &Program) -> Vec<DefId> {
    let mut out = Vec::new();
    for file in &program.files {
        for (index, def) in file.definitions.iter().enumerate() {
            if matches!(def, Def::Struct(_)) {
                out.push(DefId { file: file.id, index });
            }
        }
    }
    out
}

impl Analysis {
    pub fn new(program: &Program, map_type: MapType, set_type: SetType) -> Analysis {
        let ids = structs(program);
        let mut a = Analysis {
            key_structs: key_structs(program),
            caps: ids.iter().map(|id| (*id, Caps::ALL)).collect(),
            defaults: ids.iter().map(|id| (*id, false)).collect(),
            union_default: HashMap::new(),
            reprs: HashMap::new(),
            map_type,
            set_type,
        };
        a.boxes(program, &ids);
        a.fix_caps(program, &ids);
        a.fix_defaults(program, &ids);
        a
    }

    pub fn caps_of(&self, id: DefId) -> Caps {
        self.caps.get(&id).copied().unwrap_or(Caps::NONE)
    }

    pub fn has_default(&self, id: DefId) -> bool {
        self.defaults.get(&id).copied().unwrap_or(false)
    }

    pub fn repr(&self, id: DefId, field: usize) -> Repr {
        self.reprs.get(&(id, field)).copied().unwrap_or_default()
    }

    /// The comparison traits of `ty` as a set element or map key, where a `double`
    /// (outside a struct) is an `OrderedDouble`, which has them all.
    pub fn key_caps(&self, program: &Program, ty: &Type) -> Caps {
        self.caps_in(program, ty, true, true)
    }

    /// Whether struct `id` is held in a set element or map key.
    pub fn is_key_struct(&self, id: DefId) -> bool {
        self.key_structs.contains(&id)
    }

    /// `key`: inside a key, where doubles are `OrderedDouble`s; `btree`: where every set
    /// and map is a BTree one (inside a key, or a key struct's fields).
    fn caps_in(&self, program: &Program, ty: &Type, key: bool, btree: bool) -> Caps {
        match program.true_type(ty) {
            Type::Double if key => Caps::ALL,
            Type::Double => Caps::NONE,
            Type::List(e) => self.caps_in(program, e, key, btree),
            Type::Set(e) => {
                let elem = self.key_caps(program, e);
                match self.set_collection(program, e, btree) {
                    Collection::BTree => elem,
                    Collection::Hash => Caps { eq: elem.eq, hash: false, ord: false },
                }
            }
            Type::Map(k, v) => {
                let both = self.key_caps(program, k).and(self.caps_in(program, v, key, btree));
                match self.map_collection(program, k, btree) {
                    Collection::BTree => both,
                    Collection::Hash => Caps { eq: both.eq, hash: false, ord: false },
                }
            }
            Type::Struct(id) => self.caps_of(*id),
            Type::Invalid => Caps::NONE,
            _ => Caps::ALL,
        }
    }

    /// Whether `ty` holds a `double` outside any struct: in a key, it must be spelled out
    /// (not through a typedef) so the double can be an `OrderedDouble`.
    pub fn has_loose_double(&self, program: &Program, ty: &Type) -> bool {
        match program.true_type(ty) {
            Type::Double => true,
            Type::List(e) | Type::Set(e) => self.has_loose_double(program, e),
            Type::Map(k, v) => self.has_loose_double(program, k) || self.has_loose_double(program, v),
            _ => false,
        }
    }

    /// The collection for a set of `elem`: the configured one if the element allows it,
    /// else the other.
    pub fn set_collection(&self, program: &Program, elem: &Type, btree: bool) -> Collection {
        self.collection(program, elem, !btree && self.set_type == SetType::HashSet)
    }

    /// The collection for a map keyed by `key`.
    pub fn map_collection(&self, program: &Program, key: &Type, btree: bool) -> Collection {
        self.collection(program, key, !btree && self.map_type == MapType::HashMap)
    }

    fn collection(&self, program: &Program, key: &Type, prefer_hash: bool) -> Collection {
        let caps = self.key_caps(program, key);
        if prefer_hash && caps.eq && caps.hash {
            Collection::Hash
        } else {
            Collection::BTree
        }
    }

    /// Whether `ty` has a `Default`.
    pub fn type_default(&self, program: &Program, ty: &Type) -> bool {
        match program.true_type(ty) {
            Type::Enum(id) => program.enum_def(*id).is_some_and(|e| !e.values.is_empty()),
            Type::Struct(id) => self.has_default(*id),
            Type::Invalid => false,
            _ => true,
        }
    }

    /// Boxes the fields that lead back to their own struct without a container between.
    fn boxes(&mut self, program: &Program, ids: &[DefId]) {
        // Direct edges: struct -> struct held by a field, not in a container.
        let direct = |id: DefId| -> Vec<(usize, DefId)> {
            let Some(s) = program.struct_def(id) else { return Vec::new() };
            s.fields
                .iter()
                .enumerate()
                .filter_map(|(i, f)| match program.true_type(&f.ty) {
                    Type::Struct(t) => Some((i, *t)),
                    _ => None,
                })
                .collect()
        };
        for &id in ids {
            for (field, target) in direct(id) {
                // Does `target` reach `id` through direct edges?
                let mut stack = vec![target];
                let mut seen = vec![target];
                let mut cycle = false;
                while let Some(node) = stack.pop() {
                    if node == id {
                        cycle = true;
                        break;
                    }
                    for (_, next) in direct(node) {
                        if !seen.contains(&next) {
                            seen.push(next);
                            stack.push(next);
                        }
                    }
                }
                if cycle {
                    let s = program.struct_def(id).expect("a struct");
                    let forced_optional = s.kind != StructKind::Union
                        && s.fields[field].requiredness == Requiredness::Default
                        && s.fields[field].default.is_none();
                    self.reprs.insert((id, field), Repr { boxed: true, forced_optional });
                }
            }
        }
    }

    fn fix_caps(&mut self, program: &Program, ids: &[DefId]) {
        loop {
            let mut changed = false;
            for &id in ids {
                let Some(s) = program.struct_def(id) else { continue };
                let btree = self.key_structs.contains(&id);
                // A key struct's doubles are OrderedDoubles, as inside a key.
                let caps =
                    s.fields.iter().fold(Caps::ALL, |acc, f| acc.and(self.caps_in(program, &f.ty, btree, btree)));
                if self.caps[&id] != caps {
                    self.caps.insert(id, caps);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn fix_defaults(&mut self, program: &Program, ids: &[DefId]) {
        // Forcing a field to Option can give its struct a Default, which can let another
        // field keep its type: repeat until nothing changes.
        while self.default_pass(program, ids) {}
    }

    /// One fixpoint of `Default`, then the fields it forces to Option; whether any was.
    fn default_pass(&mut self, program: &Program, ids: &[DefId]) -> bool {
        loop {
            let mut changed = false;
            for &id in ids {
                let Some(s) = program.struct_def(id) else { continue };
                let has = if s.kind == StructKind::Union {
                    // The member with an IDL default, else the first whose type has one.
                    let pick = s.fields.iter().position(|f| f.default.is_some()).or_else(|| {
                        s.fields
                            .iter()
                            .enumerate()
                            .position(|(i, f)| !self.repr(id, i).boxed && self.type_default(program, &f.ty))
                    });
                    if let Some(pick) = pick {
                        self.union_default.insert(id, pick);
                    }
                    pick.is_some()
                } else {
                    s.fields.iter().enumerate().all(|(i, f)| {
                        f.requiredness == Requiredness::Optional
                            || self.repr(id, i).forced_optional
                            || f.default.is_some()
                            || self.type_default(program, &f.ty)
                    })
                };
                if has && !self.defaults[&id] {
                    self.defaults.insert(id, true);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Default-requiredness fields whose type has no default get Option, so the derive
        // has a value when they are absent.
        let mut forced = false;
        for &id in ids {
            let Some(s) = program.struct_def(id) else { continue };
            if s.kind == StructKind::Union {
                continue;
            }
            for (i, f) in s.fields.iter().enumerate() {
                let repr = self.repr(id, i);
                if f.requiredness == Requiredness::Default
                    && f.default.is_none()
                    && !repr.forced_optional
                    && !self.type_default(program, &f.ty)
                {
                    self.reprs.entry((id, i)).or_default().forced_optional = true;
                    forced = true;
                }
            }
        }
        forced
    }
}
