package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.platforms.GatewayFixture;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Files both ways through a real Prosody's HTTP upload service (mod_http_file_share, XEP-0363) and out-of-band URLs. */
class XmppFilesTest {
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");
    static Prosody prosody;

    @TempDir
    Path workspace;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, prosody.port, List.of()), XmppTest.ALICE);
    XmppUser alice;

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        prosody.close();
    }

    @BeforeEach
    void setUp() throws Exception {
        alice = XmppUser.login(prosody, "alice", "alice-pw");
    }

    @AfterEach
    void tearDown() {
        alice.close();
    }

    private XmppAdapter adapter() {
        return (XmppAdapter) herald.current;
    }

    @Test
    void theServersUploadService_isDiscovered_withItsSizeLimit() {
        herald.start();
        assertThat(adapter().capabilities().files()).isTrue();
        assertThat(adapter().capabilities().maxFileBytes()).isEqualTo(Prosody.UPLOAD_LIMIT);
    }

    @Test
    void aFileFromTheAgent_isUploaded_andTheUserGetsItsUrlWithOutOfBandData_andTheSameBytes() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        Path p = workspace.resolve("summary.pdf");
        Files.write(p, pdf);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", new OutboundFile(p.toString(), "summary.pdf", "application/pdf", pdf.length,
                "Q3 summary"));

        alice.say(XmppTest.BOT, "summarize it");

        await().atMost(WAIT).until(() -> alice.messagesFrom(XmppTest.BOT).stream()
                .anyMatch(r -> r.stanza().child("x", XmppFiles.OOB_NS).isPresent()));
        XmppUser.Received file = alice.messagesFrom(XmppTest.BOT).stream().filter(r -> r.stanza().child("x", XmppFiles.OOB_NS).isPresent())
                .findFirst().orElseThrow();
        String url = file.stanza().child("x", XmppFiles.OOB_NS).orElseThrow().child("url", XmppFiles.OOB_NS).orElseThrow().text();
        assertThat(file.body()).isEqualTo(url);
        assertThat(url).startsWith("http://127.0.0.1:" + prosody.httpPort + "/").endsWith("summary.pdf");
        assertThat(alice.bodiesFrom(XmppTest.BOT)).containsSubsequence("Here is the summary.", url);
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.body()).isEqualTo(pdf);
        }
    }

    @Test
    void aFileFromTheUser_reachesTheAgentAsAnImage_andTheFetcherReturnsItsBytes() throws Exception {
        herald.start();
        String url = alice.upload("chart.png", PNG, "image/png");

        alice.sendFile(XmppTest.BOT, url);

        List<TurnRequest> calls = herald.agent.awaitCalls(1, WAIT);
        MessageEvent.MediaRef ref = calls.getFirst().attachments().getFirst();
        assertThat(ref.kind()).isEqualTo("image");
        assertThat(ref.ref()).isEqualTo(url);
        assertThat(ref.mimeType()).isEqualTo("image/png");
        assertThat(calls.getFirst().userMessage()).as("the body was only the link").isEmpty();
        MediaFetcher.Fetched fetched = adapter().fetcher().fetch(ref, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(PNG);
        assertThatThrownBy(() -> adapter().fetcher().fetch(ref, 10)).hasMessageContaining("over the limit of 10");
    }

    @Test
    void aFileUrlOnAnotherHost_isRefusedByTheFetcher_withoutAnyRequestToIt() throws Exception {
        herald.start();
        try (ServerSocket elsewhere = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.2"))) {
            String url = "http://127.0.0.2:" + elsewhere.getLocalPort() + "/x.png";
            alice.sendFile(XmppTest.BOT, url);

            MessageEvent.MediaRef ref = herald.agent.awaitCalls(1, WAIT).getFirst().attachments().getFirst();
            assertThat(ref.ref()).isEqualTo(url);
            assertThatThrownBy(() -> adapter().fetcher().fetch(ref, 1024 * 1024)).hasMessageContaining("refused")
                    .hasMessageContaining("127.0.0.2");
            elsewhere.setSoTimeout(300);
            assertThatThrownBy(elsewhere::accept).as("nothing connected to the other host").isInstanceOf(SocketTimeoutException.class);
        }
    }
}
