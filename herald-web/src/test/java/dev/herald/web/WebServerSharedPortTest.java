package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A restart that hands over shares the port: the new process binds it while the old one serves, the old one stops
 * accepting and finishes the request it holds, and a port held by anybody else is still refused at a first start.
 */
class WebServerSharedPortTest {
    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static WebServer server(int port, String name, CountDownLatch release) {
        WebServer web = new WebServer(new WebServer.Settings("127.0.0.1", port));
        web.add(Routes.of("who", r -> {
            r.get("/who", ctx -> ctx.result(name));
            r.get("/slow", ctx -> {
                release.await(20, TimeUnit.SECONDS);
                ctx.result("slow answer from " + name);
            });
        }));
        return web;
    }

    /** A request on a new connection each time (no keep-alive), as a client arriving after the handover would. */
    private static String get(int port, String path) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theNewProcessBindsTheOldOnesPort_andOnceTheOldStopsAccepting_allNewConnectionsReachTheNew_whileTheOldFinishes()
            throws Exception {
        int port = freePort();
        CountDownLatch release = new CountDownLatch(1);
        try (WebServer old = server(port, "old", release).sharePort(false); WebServer next = server(port, "new", release).sharePort(true)) {
            old.start();
            CompletableFuture<String> inFlight = CompletableFuture.supplyAsync(() -> {
                try {
                    return get(port, "/slow");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300); // the slow request is held by the old server
            next.start();

            old.stopAccepting();
            for (int i = 0; i < 20; i++) {
                assertThat(get(port, "/who")).isEqualTo("new");
            }
            release.countDown();

            assertThat(inFlight.get(20, TimeUnit.SECONDS)).isEqualTo("slow answer from old");
        }
    }

    @Test
    void aKeptAliveClientOfTheOldProcess_reachesTheNewOneOnceTheOldStopsAccepting() throws Exception {
        int port = freePort();
        CountDownLatch release = new CountDownLatch(0);
        HttpClient keepAlive = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (WebServer old = server(port, "old", release).sharePort(false); WebServer next = server(port, "new", release).sharePort(true)) {
            old.start();
            HttpRequest who = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/who")).build();
            assertThat(keepAlive.send(who, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("old");
            next.start();

            old.stopAccepting();
            Thread.sleep(200); // the client sees its idle connection closed

            for (int i = 0; i < 10; i++) {
                assertThat(keepAlive.send(who, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("new");
            }
        }
    }

    /**
     * While the old process stops listening, a client keeps sending on its kept-alive connection: that request is
     * answered by the old process, with {@code Connection: close}, and the client's next request reaches the new one.
     * Closing the idle connection at once would race the client's send (an answerless POST), as a rolling restart found.
     */
    @Test
    void aRequestOnAKeptAliveConnectionWhileTheOldStopsListening_isAnsweredThere_andClosesTheConnection() throws Exception {
        int port = freePort();
        CountDownLatch release = new CountDownLatch(0);
        HttpClient keepAlive = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (WebServer old = server(port, "old", release).sharePort(false); WebServer next = server(port, "new", release).sharePort(true)) {
            old.start();
            HttpRequest who = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/who")).build();
            assertThat(keepAlive.send(who, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("old");
            next.start();

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(old::stopAccepting);
            Thread.sleep(200); // the old one has stopped listening and lingers on its open connection

            HttpResponse<String> during = keepAlive.send(who, HttpResponse.BodyHandlers.ofString());
            assertThat(during.body()).isEqualTo("old");
            assertThat(during.headers().firstValue("Connection")).hasValue("close");
            assertThat(keepAlive.send(who, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("new");
            stopping.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSharedPort_thatAnotherProgramHolds_isRefusedAtAFirstStart() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                WebServer web = server(other.getLocalPort(), "herald", new CountDownLatch(0)).sharePort(false)) {
            assertThatThrownBy(web::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("web - cannot listen on 127.0.0.1:" + other.getLocalPort())
                    .hasMessageEndingWith("pick a free port or stop the other process");
        }
    }

    @Test
    void aSharedPort_heldByAnotherHeraldThatIsNotHandingOver_isRefusedToo() throws Exception {
        int port = freePort();
        try (WebServer first = server(port, "first", new CountDownLatch(0)).sharePort(false);
                WebServer second = server(port, "second", new CountDownLatch(0)).sharePort(false)) {
            first.start();

            assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot listen on");
            assertThat(get(port, "/who")).isEqualTo("first");
        }
    }
}
