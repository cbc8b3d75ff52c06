use thrift_core::ThriftStruct;

#[derive(ThriftStruct)]
#[thrift(nmae = "Req")]
struct Request {
    #[thrift(id = 1, requird)]
    name: String,
    // The id after the mistake is not read, but the field is not also reported as missing one.
    #[thrift(optinal, id = 2)]
    nickname: Option<String>,
}

fn main() {}
