// The seed's Java server: HelloService.AsyncIface behind TNonblockingServer (framed, binary),
// answering as every peer in the RPC comparison does. Built and started by `rpc-compare`
// against Debian's libthrift-java, with code from `thrift --gen java idl/hello.thrift`.
import java.net.InetSocketAddress;

import hello.HelloRequest;
import hello.HelloResponse;
import hello.HelloService;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.server.TNonblockingServer;
import org.apache.thrift.server.TServer;
import org.apache.thrift.transport.TNonblockingServerSocket;

public class HelloServer {
    static class Greeter implements HelloService.AsyncIface {
        @Override
        public void sayHello(HelloRequest req, AsyncMethodCallback<HelloResponse> resultHandler) {
            HelloResponse reply = new HelloResponse();
            reply.setName(req.getName());
            reply.setAge(19);
            reply.setMessage("hello, " + req.getName() + ": " + req.getMessage());
            reply.setTimestamp(System.currentTimeMillis());
            resultHandler.onComplete(reply);
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        TNonblockingServerSocket socket = new TNonblockingServerSocket(new InetSocketAddress("127.0.0.1", port));
        TServer server = new TNonblockingServer(
                new TNonblockingServer.Args(socket).processor(new HelloService.AsyncProcessor<>(new Greeter())));
        server.serve();
    }
}
