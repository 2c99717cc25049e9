package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.plugins.PluginJar;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A platform plug-in jar dropped into {@code $HERALD_HOME/plugins/}, built by the test from source: the real
 * {@code herald run} loads it (the start-up log names it and its jar), binds {@code platforms.telnet} into its settings
 * record, and a message written to its loopback socket reaches the agent and its answer comes back on the socket. A jar
 * that is not one stops {@code herald run} with exit 78 naming it.
 */
class PluginJarIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aPluginJarInThePluginsFolder_isLoadedAtStart_andCarriesAMessageToTheAgentAndItsAnswerBack() throws Exception {
        Path home = dir.resolve("home");
        Path jar = PluginJar.telnet().writeTo(home.resolve("plugins/telnet.jar"), dir.resolve("build"));
        int port = freePort();
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 1", null);
        herald.rewriteConfig("platforms:\n", "platforms:\n  telnet:\n    enabled: true\n    port: " + port + "\n    allow_all_users: true\n");
        herald.start(false, Map.of()).awaitReady();
        model.enqueue(Reply.text("pong from the agent"));

        String answer;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
            PrintWriter out = new PrintWriter(new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8), true);
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out.println("ping through a plug-in");
            answer = in.readLine();
        }

        assertThat(answer).isEqualTo("pong from the agent");
        assertThat(model.lastRequest().body()).contains("ping through a plug-in");
        assertThat(herald.output()).contains("plugins - platforms: telegram, weixin, discord, slack, email, irc, matrix, xmpp, mattermost, whatsapp, signal, waha, teams, sms, line, google_chat, wecom, ntfy, feishu, dingtalk, qqbot, bluebubbles, homeassistant (built in); telnet (from " + jar + ")")
                .contains("runtime - telnet enabled");
    }

    @Test
    void aBrokenJarInThePluginsFolder_stopsHeraldRun_withExit78NamingIt() throws Exception {
        Path home = dir.resolve("home");
        Path jar = PluginJar.notAJar(home.resolve("plugins/broken.jar"), "not a zip");
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 1", null);

        int exit = herald.start(false, Map.of()).awaitExit(Duration.ofSeconds(60));

        assertThat(exit).isEqualTo(78);
        assertThat(herald.output()).contains("plugins - " + jar + ": not a jar file");
        assertThat(home.resolve("herald.db")).as("nothing started").doesNotExist();
    }
}
