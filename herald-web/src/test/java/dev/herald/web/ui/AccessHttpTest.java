package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.agent.ScriptedAgent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The access rules through the real server and the JDK client: loopback rule, login cookie, CSRF refusals, no key leaks. */
class AccessHttpTest {
    private static final String KEY = "sk-access-http-test-4242";

    @TempDir
    Path dir;

    @Test
    void noKey_loopbackAllowed_foreignHostHeaderRefused() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            assertThat(fx.get("/chat/api/conversations").statusCode()).isEqualTo(200);
            assertThat(fx.get("/").statusCode()).isEqualTo(200);
            String answer = raw(fx.web.port(), "GET /admin/api/status HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
            assertThat(answer).startsWith("HTTP/1.1 403").contains("Host header");
            assertThat(raw(fx.web.port(), "GET / HTTP/1.1\r\nHost: rebind.evil.example:8642\r\nConnection: close\r\n\r\n"))
                    .startsWith("HTTP/1.1 403");
        }
    }

    @Test
    void key_dataWithoutCookie401_wrongKey401_rightKeySetsStrictHttpOnlyCookie_thenAllowed() {
        try (WebUiFixture fx = WebUiFixture.withKey(dir, new ScriptedAgent(), KEY)) {
            assertThat(fx.get("/admin/api/status").statusCode()).isEqualTo(401);
            assertThat(fx.get("/metrics").statusCode()).isEqualTo(401);
            assertThat(fx.get("/").statusCode()).as("pages carry no data; they ask for the key").isEqualTo(200);

            HttpResponse<String> wrong = fx.post("/auth/login", "{\"key\":\"guess\"}");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();

            HttpResponse<String> ok = fx.post("/auth/login", "{\"key\":\"" + KEY + "\"}");
            assertThat(ok.statusCode()).isEqualTo(200);
            String cookie = ok.headers().firstValue("Set-Cookie").orElseThrow();
            assertThat(cookie).startsWith("herald_session=").contains("; HttpOnly").contains("; SameSite=Strict").contains("Path=/")
                    .doesNotContain("Secure").doesNotContain(KEY);
            assertThat(ok.body()).doesNotContain(KEY);
            assertThat(fx.get("/admin/api/status").statusCode()).as("the client now sends the cookie").isEqualTo(200);
            assertThat(fx.get("/metrics", "Authorization", "Bearer " + KEY).statusCode()).isEqualTo(200);

            HttpResponse<String> tls = fx.post("/auth/login", "{\"key\":\"" + KEY + "\"}", "X-Herald-Csrf", "1", "X-Forwarded-Proto", "https");
            assertThat(tls.headers().firstValue("Set-Cookie").orElseThrow()).endsWith("; Secure");
        }
    }

    @Test
    void writes_withoutCsrfHeader_fromForeignOrigin_orCrossSite_refused403_andNothingHappens() {
        ScriptedAgent agent = new ScriptedAgent();
        try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
            String send = "{\"conversation\":\"conv-csrf-1\",\"clientId\":\"m-000001\",\"text\":\"hi\"}";
            assertThat(fx.post("/chat/api/send", send, "X-Unrelated", "1").statusCode()).isEqualTo(403);
            assertThat(fx.post("/chat/api/send", send, "X-Herald-Csrf", "1", "Origin", "http://evil.example").statusCode()).isEqualTo(403);
            assertThat(fx.post("/chat/api/send", send, "X-Herald-Csrf", "1", "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
            HttpResponse<String> restart = fx.post("/admin/api/restart", "{}", "X-Unrelated", "1");
            assertThat(restart.statusCode()).isEqualTo(403);
            assertThat(restart.body()).contains("cross-site request refused");
            assertThat(agent.calls()).isEmpty();
            assertThat(fx.post("/chat/api/send", send, "X-Herald-Csrf", "1", "Origin", fx.baseUrl(), "Sec-Fetch-Site", "same-origin")
                    .statusCode()).isEqualTo(200);
        }
    }

    private static String raw(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
