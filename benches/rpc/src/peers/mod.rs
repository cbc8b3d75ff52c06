//! Each peer's HelloService server and client, all answering and checking alike.

pub mod apache;
pub mod codec;
pub mod java;
pub mod ours;
pub mod raw;
pub mod volo;
