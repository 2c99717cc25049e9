package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * STARTTLS against a real Prosody with a certificate for {@code localhost}: with that certificate trusted the adapter
 * upgrades, logs in and answers; with the JDK's own trust (which does not know it) it never connects, never falls back
 * to plain, and says why.
 */
class XmppTlsTest {
    static Prosody prosody;

    @RegisterExtension
    final GatewayFixture herald = tlsHerald();

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody(true).register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        prosody.close();
    }

    private static XmppSettings starttls() {
        return XmppSettings.of(XmppTest.BOT, XmppTest.BOT_PASSWORD).withServer("127.0.0.1", prosody.port, XmppSettings.Security.STARTTLS);
    }

    private static GatewayFixture tlsHerald() {
        GatewayFixture[] f = new GatewayFixture[1];
        f[0] = new GatewayFixture(clock -> new XmppAdapter(starttls(), XmppTest.TIMING, clock, trusting()))
                .allow(XmppTest.ALICE).readyWhen(() -> f[0].current instanceof XmppAdapter a && a.ready());
        return f[0];
    }

    /** TLS that trusts the test server's certificate only. */
    static SSLSocketFactory trusting() {
        try (InputStream pem = Files.newInputStream(prosody.certificate())) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("prosody", CertificateFactory.getInstance("X.509").generateCertificate(pem));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (Exception e) {
            throw new AssertionError("could not trust the test certificate", e);
        }
    }

    @Test
    void starttls_withTheServersCertificateTrusted_upgradesLogsInAndAnswers() throws Exception {
        herald.start();
        try (XmppUser alice = XmppUser.login(prosody, "alice", "alice-pw")) {
            alice.say(XmppTest.BOT, "over tls?");
            await().atMost(WAIT).until(() -> alice.bodiesFrom(XmppTest.BOT).contains("echo: over tls?"));
        }
    }

    @Test
    void starttls_withACertificateNobodyTrusts_neverConnects_andSaysWhy() throws Exception {
        XmppAdapter adapter = new XmppAdapter(starttls(), XmppTest.TIMING, Clock.systemUTC());
        RecordingSink sink = new RecordingSink();
        try {
            adapter.start(sink);
            await().atMost(WAIT).until(() -> sink.states.contains(ConnectionState.BACKING_OFF));
            assertThat(sink.states).doesNotContain(ConnectionState.CONNECTED);
            assertThat(sink.details).anySatisfy(d -> assertThat(d).containsIgnoringCase("certification path"));
        } finally {
            adapter.close();
        }
    }

}
