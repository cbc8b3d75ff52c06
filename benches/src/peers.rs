//! The same values as the peers' generated types, and back (for semantic comparisons).

use std::collections::{BTreeMap, BTreeSet};

use pilota::{Bytes as PBytes, FastStr};
use thrift::OrderedFloat;

use crate::apache_gen as apache;
use crate::pilota_gen::pilota_shapes::shapes as pilota_types;
use crate::shapes::{Large, Medium, Small};

fn fast(s: &str) -> FastStr {
    FastStr::new(s)
}

/// A value of this project's type as pilota's type.
pub trait ToPilota {
    /// pilota's generated type.
    type Pilota;
    /// Converts.
    fn to_pilota(&self) -> Self::Pilota;
}

/// A value of this project's type as Apache's generated type.
pub trait ToApache {
    /// Apache's generated type.
    type Apache;
    /// Converts.
    fn to_apache(&self) -> Self::Apache;
}

/// A pilota value as this project's type, to compare what pilota decoded with what was
/// encoded: its maps and sets are hashed, so comparing their bytes would compare orders.
pub trait FromPilota<P> {
    /// Converts.
    fn from_pilota(p: &P) -> Self;
}

impl ToPilota for Small {
    type Pilota = pilota_types::Small;
    fn to_pilota(&self) -> Self::Pilota {
        pilota_types::Small {
            id: self.id,
            timestamp: self.timestamp,
            flags: self.flags,
            level: self.level,
            active: self.active,
            score: self.score,
            count: self.count,
            sequence: self.sequence,
            ratio: self.ratio,
            archived: self.archived,
            name: fast(&self.name),
            label: fast(&self.label),
            token: PBytes::copy_from_slice(&self.token),
        }
    }
}

impl FromPilota<pilota_types::Small> for Small {
    fn from_pilota(p: &pilota_types::Small) -> Self {
        Small {
            id: p.id,
            timestamp: p.timestamp,
            flags: p.flags,
            level: p.level,
            active: p.active,
            score: p.score,
            count: p.count,
            sequence: p.sequence,
            ratio: p.ratio,
            archived: p.archived,
            name: p.name.to_string(),
            label: p.label.to_string(),
            token: p.token.to_vec(),
        }
    }
}

impl ToPilota for Medium {
    type Pilota = pilota_types::Medium;
    fn to_pilota(&self) -> Self::Pilota {
        pilota_types::Medium {
            id: self.id,
            title: fast(&self.title),
            values: self.values.clone(),
            names: self.names.iter().map(|s| fast(s)).collect(),
            attributes: self.attributes.iter().map(|(k, v)| (fast(k), fast(v))).collect(),
            tags: self.tags.iter().copied().collect(),
            items: self.items.iter().map(Small::to_pilota).collect(),
            note: self.note.as_deref().map(fast),
            parent: self.parent,
            weight: self.weight,
        }
    }
}

impl FromPilota<pilota_types::Medium> for Medium {
    fn from_pilota(p: &pilota_types::Medium) -> Self {
        Medium {
            id: p.id,
            title: p.title.to_string(),
            values: p.values.clone(),
            names: p.names.iter().map(|s| s.to_string()).collect(),
            attributes: p.attributes.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
            tags: p.tags.iter().copied().collect::<BTreeSet<_>>(),
            items: p.items.iter().map(Small::from_pilota).collect(),
            note: p.note.as_ref().map(|s| s.to_string()),
            parent: p.parent,
            weight: p.weight,
        }
    }
}

impl ToPilota for Large {
    type Pilota = pilota_types::Large;
    fn to_pilota(&self) -> Self::Pilota {
        pilota_types::Large {
            id: self.id,
            name: fast(&self.name),
            mediums: self.mediums.iter().map(Medium::to_pilota).collect(),
            blob: PBytes::copy_from_slice(&self.blob),
        }
    }
}

impl FromPilota<pilota_types::Large> for Large {
    fn from_pilota(p: &pilota_types::Large) -> Self {
        Large {
            id: p.id,
            name: p.name.to_string(),
            mediums: p.mediums.iter().map(Medium::from_pilota).collect(),
            blob: p.blob.to_vec(),
        }
    }
}

impl ToApache for Small {
    type Apache = apache::Small;
    fn to_apache(&self) -> Self::Apache {
        apache::Small {
            id: self.id,
            timestamp: self.timestamp,
            flags: self.flags,
            level: self.level,
            active: self.active,
            score: OrderedFloat(self.score),
            count: self.count,
            sequence: self.sequence,
            ratio: OrderedFloat(self.ratio),
            archived: self.archived,
            name: self.name.clone(),
            label: self.label.clone(),
            token: self.token.clone(),
        }
    }
}

impl ToApache for Medium {
    type Apache = apache::Medium;
    fn to_apache(&self) -> Self::Apache {
        apache::Medium {
            id: self.id,
            title: self.title.clone(),
            values: self.values.clone(),
            names: self.names.clone(),
            attributes: self.attributes.clone(),
            tags: self.tags.clone(),
            items: self.items.iter().map(Small::to_apache).collect(),
            note: self.note.clone(),
            parent: self.parent,
            weight: self.weight.map(OrderedFloat),
        }
    }
}

impl ToApache for Large {
    type Apache = apache::Large;
    fn to_apache(&self) -> Self::Apache {
        apache::Large {
            id: self.id,
            name: self.name.clone(),
            mediums: self.mediums.iter().map(Medium::to_apache).collect(),
            blob: self.blob.clone(),
        }
    }
}
