// The seed's HelloService (a Java team's Thrift client experiments), served and called by
// every peer in the RPC comparison. thrift-loadtest mirrors it with derives
// (loadtest/src/hello.rs); every server answers alike: the request's name, age 19,
// "hello, NAME: MESSAGE", the time in milliseconds.
namespace rs hello
namespace java hello

struct HelloRequest {
    1: string name;
    2: string message;
}

struct HelloResponse {
    1: string name;
    2: i32 age;
    3: string message;
    4: i64 timestamp;
}

service HelloService {
    HelloResponse sayHello(1: HelloRequest req);
}
