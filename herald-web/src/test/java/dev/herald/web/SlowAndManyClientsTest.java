package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Slow and many clients against the real server on loopback: slowloris, the per-address cap, the accept
 * queue. Attackers connect from other loopback addresses (127.0.1.x ...), so the cap on them does not
 * touch the 127.0.0.1 client that checks {@code /health}. Every wait is bounded.
 */
class SlowAndManyClientsTest {
    private static final byte[] TRICKLE_START = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void slowloris_2000ConnectionsTricklingHeaders_healthStillAnswers_andEachIsClosedAfterTheHeaderDeadline() throws Exception {
        WebServer.Settings settings = WebServer.Settings.ephemeral().withClientLimits(Duration.ofSeconds(1), 250);
        try (WebServer web = new WebServer(settings); Selector selector = Selector.open()) {
            web.start();
            List<SocketChannel> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 2_000; i++) {
                    SocketChannel c = SocketChannel.open();
                    c.bind(new InetSocketAddress(InetAddress.getByName("127.0.1." + (1 + i / 200)), 0));
                    c.connect(new InetSocketAddress("127.0.0.1", web.port()));
                    c.write(ByteBuffer.wrap(TRICKLE_START));
                    c.configureBlocking(false);
                    c.register(selector, SelectionKey.OP_READ);
                    slow.add(c);
                }
                long t0 = System.nanoTime();
                int closedByServer = 0;
                long healthWorst = 0;
                ByteBuffer sink = ByteBuffer.allocate(4096);
                while (closedByServer < slow.size() && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20)) {
                    for (SocketChannel c : slow) {
                        if (c.isOpen()) {
                            try {
                                c.write(ByteBuffer.wrap(new byte[] {'a'})); // one more header byte, keeping the socket "busy"
                            } catch (IOException reset) {
                                c.close();
                                closedByServer++;
                            }
                        }
                    }
                    long h0 = System.nanoTime();
                    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + "/health"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(health.statusCode()).isEqualTo(200);
                    healthWorst = Math.max(healthWorst, System.nanoTime() - h0);
                    selector.select(200);
                    for (SelectionKey key : selector.selectedKeys()) {
                        SocketChannel c = (SocketChannel) key.channel();
                        sink.clear();
                        int n;
                        try {
                            n = c.read(sink);
                        } catch (IOException reset) {
                            n = -1;
                        }
                        if (n < 0 && c.isOpen()) {
                            c.close();
                            closedByServer++;
                        }
                    }
                    selector.selectedKeys().clear();
                }
                long took = System.nanoTime() - t0;

                assertThat(closedByServer).as("trickling connections the server closed").isEqualTo(2_000);
                assertThat(Duration.ofNanos(took)).as("all closed soon after the 1 s header deadline").isLessThan(Duration.ofSeconds(10));
                assertThat(Duration.ofNanos(healthWorst)).as("slowest /health meanwhile").isLessThan(Duration.ofSeconds(2));
            } finally {
                for (SocketChannel c : slow) {
                    c.close();
                }
            }
        }
    }

    @Test
    void perAddressCap_extraConnectionsAreClosedAtOnce_otherAddressesUnaffected_andFreedSlotsReused() throws Exception {
        WebServer.Settings settings = WebServer.Settings.ephemeral().withClientLimits(Duration.ofSeconds(30), 20);
        try (WebServer web = new WebServer(settings)) {
            web.start();
            InetAddress greedy = InetAddress.getByName("127.0.2.1");
            List<Socket> held = new ArrayList<>();
            try {
                List<Socket> all = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    all.add(connect(greedy, web.port()));
                }
                // the server counts a connection when it has accepted it, which may be in another order than the
                // connects: whichever five came over the cap are closed without an answer, the other twenty stay open
                List<Socket> closed = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (closed.size() < 5 && System.nanoTime() < deadline) {
                    for (Socket c : all) {
                        if (!closed.contains(c)) {
                            c.setSoTimeout(50);
                            if (readOrEof(c) < 0) {
                                closed.add(c);
                            }
                        }
                    }
                }
                assertThat(closed).as("extra connections closed without an answer").hasSize(5);
                for (Socket c : all) {
                    if (closed.contains(c)) {
                        c.close();
                    } else {
                        c.setSoTimeout(200);
                        assertThat(readOrEof(c)).as("a connection within the cap stays open").isZero();
                        held.add(c);
                    }
                }
                assertThat(held).hasSize(20);
                assertThat(get(web, "/health").statusCode()).as("127.0.0.1 is another client").isEqualTo(200);

                held.removeFirst().close();
                Socket again = awaitAccepted(greedy, web.port());
                try {
                    again.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    assertThat(new String(again.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
                } finally {
                    again.close();
                }
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    @Test
    void acceptQueue_500SimultaneousRequests_allAnswered_noneReset_andTheListenBacklogHoldsThem() throws Exception {
        try (WebServer web = new WebServer(WebServer.Settings.ephemeral())) {
            web.start();
            int n = 500;
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger ok = new AtomicInteger();
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> all = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    all.add(pool.submit(() -> {
                        go.await();
                        try (Socket s = new Socket()) {
                            s.connect(new InetSocketAddress("127.0.0.1", web.port()), 10_000);
                            s.setSoTimeout(15_000);
                            s.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                    .getBytes(StandardCharsets.US_ASCII));
                            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                            if (answer.startsWith("HTTP/1.1 200")) {
                                ok.incrementAndGet();
                            } else {
                                failures.add(answer.lines().findFirst().orElse("(empty answer)"));
                            }
                        } catch (IOException e) {
                            failures.add(e.toString());
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : all) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }

            assertThat(failures).as("connection resets or errors").isEmpty();
            assertThat(ok.get()).isEqualTo(n);
            assertThat(listenBacklog(web.port())).as("the kernel's accept queue for the port").isGreaterThanOrEqualTo(n);
        }
    }

    /** The backlog of the listening socket as {@code ss} reports it (Send-Q of a LISTEN socket). */
    private static int listenBacklog(int port) throws Exception {
        Process p = new ProcessBuilder("ss", "-ltnH", "sport = :" + port).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        String[] cols = out.strip().split("\\s+");
        assertThat(cols).as("ss output: " + out).hasSizeGreaterThan(3);
        return Integer.parseInt(cols[2]);
    }

    private HttpResponse<String> get(WebServer web, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Socket connect(InetAddress from, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        return s;
    }

    /** A connection from {@code from} that the server keeps (the freed slot may take a moment to be counted). */
    private static Socket awaitAccepted(InetAddress from, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            Socket s = connect(from, port);
            s.setSoTimeout(300);
            if (readOrEof(s) != -1) {
                s.setSoTimeout(5_000);
                return s;
            }
            s.close();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no connection from " + from + " was kept within 5 s after one was closed");
            }
            Thread.sleep(50);
        }
    }

    /** -1 when the server closed the connection, 0 when it is still open and silent (read timed out). */
    private static int readOrEof(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            return in.read() < 0 ? -1 : 1;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return 0;
        } catch (IOException reset) {
            return -1;
        }
    }

}
