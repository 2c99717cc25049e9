package dev.herald.platforms.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.platforms.discord.DiscordAdapter;
import dev.herald.platforms.discord.DiscordSettings;
import dev.herald.platforms.slack.SlackAdapter;
import dev.herald.platforms.slack.SlackSettings;
import dev.herald.platforms.telegram.TelegramAdapter;
import dev.herald.platforms.telegram.TelegramSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each chat platform fetches the photos it delivered through its own file API, size-capped, from its own hosts only:
 * Telegram ({@code getFile}, then the token-bearing file URL), Discord (the attachment's CDN URL, no credentials) and
 * Slack ({@code url_private} with the bot token). One loopback server plays the three platforms' file hosts.
 */
class MediaFetchTest {
    static final byte[] PNG = java.util.Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");
    static final String TOKEN = "123456:AAtelegram-secret-token";
    static final String SLACK_BOT = "xoxb-slack-secret-token";

    HttpServer server;
    String base;
    final Map<String, byte[]> files = new ConcurrentHashMap<>();
    final List<String> seen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::serve);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void serve(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        seen.add(x.getRequestMethod() + " " + path + " auth=" + x.getRequestHeaders().getFirst("Authorization"));
        byte[] body;
        int status = 200;
        if (path.equals("/bot" + TOKEN + "/getFile")) {
            String request = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String id = request.replaceAll(".*\"file_id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            byte[] file = files.get("tg/" + id);
            body = (file == null ? "{\"ok\":false,\"error_code\":400,\"description\":\"Bad Request: invalid file_id\"}"
                    : "{\"ok\":true,\"result\":{\"file_id\":\"" + id + "\",\"file_size\":" + file.length + ",\"file_path\":\"photos/" + id + ".jpg\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            status = file == null ? 400 : 200;
        } else if (path.startsWith("/file/bot" + TOKEN + "/photos/")) {
            body = files.get("tg/" + path.substring(path.lastIndexOf('/') + 1).replace(".jpg", ""));
        } else if (path.equals("/redirect-away")) {
            x.getResponseHeaders().add("Location", "http://127.0.0.2:" + server.getAddress().getPort() + "/slack/a.png");
            x.sendResponseHeaders(302, -1);
            x.close();
            return;
        } else if (path.startsWith("/slack/") && !("Bearer " + SLACK_BOT).equals(x.getRequestHeaders().getFirst("Authorization"))) {
            body = "not allowed".getBytes(StandardCharsets.UTF_8);
            status = 403;
        } else {
            body = files.get(path);
        }
        if (body == null) {
            body = new byte[0];
            status = 404;
        }
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            x.getResponseBody().write(body);
        }
        x.close();
    }

    @Test
    void telegram_getFileThenDownload_returnsThePhotoAndKeepsTheTokenOutOfErrors() throws Exception {
        files.put("tg/AgADphoto", PNG);
        files.put("tg/AgADbig", new byte[4096]);
        MediaFetcher telegram = new TelegramAdapter(TelegramSettings.of(base, TOKEN, false), Clock.systemUTC());

        MediaFetcher.Fetched photo = telegram.fetch(new MediaRef("photo", "AgADphoto", "image/jpeg"), 1024);

        assertThat(photo.bytes()).isEqualTo(PNG);
        assertThat(seen).contains("POST /bot" + TOKEN + "/getFile auth=null", "GET /file/bot" + TOKEN + "/photos/AgADphoto.jpg auth=null");
        assertThatThrownBy(() -> telegram.fetch(new MediaRef("photo", "AgADbig", null), 1024))
                .hasMessageContaining("4096 bytes, over the 1024-byte limit").hasMessageNotContaining(TOKEN);
        assertThatThrownBy(() -> telegram.fetch(new MediaRef("photo", "AgADgone", null), 1024))
                .hasMessageContaining("getFile failed").hasMessageNotContaining(TOKEN);
        assertThat(seen).noneMatch(s -> s.contains("AgADbig.jpg"));
    }

    @Test
    void discord_fetchesTheAttachmentFromItsFileHostOnly_withoutTheBotToken() throws Exception {
        files.put("/attachments/1/2/cat.png", PNG);
        MediaFetcher discord = new DiscordAdapter(DiscordSettings.of("discord-bot-token").withEndpoints(URI.create(base + "/api/v10"),
                URI.create("ws://127.0.0.1:9/gateway")), Clock.systemUTC());

        MediaFetcher.Fetched cat = discord.fetch(new MediaRef("attachment", base + "/attachments/1/2/cat.png", "image/png"), 1024);

        assertThat(cat.bytes()).isEqualTo(PNG);
        assertThat(seen).containsExactly("GET /attachments/1/2/cat.png auth=null");
        String elsewhere = "http://127.0.0.2:" + server.getAddress().getPort() + "/attachments/1/2/cat.png";
        assertThatThrownBy(() -> discord.fetch(new MediaRef("attachment", elsewhere, "image/png"), 1024))
                .hasMessageContaining("127.0.0.2 is not one of the platform's file hosts");
        assertThat(seen).hasSize(1);
    }

    @Test
    void slack_sendsTheBotTokenToItsFileHost_andFollowsNoRedirectElsewhere() throws Exception {
        files.put("/slack/a.png", PNG);
        MediaFetcher slack = new SlackAdapter(SlackSettings.of("xapp-app-token", SLACK_BOT).withApiBase(URI.create(base + "/api")),
                Clock.systemUTC());

        MediaFetcher.Fetched a = slack.fetch(new MediaRef("file", base + "/slack/a.png", "image/png"), 1024);

        assertThat(a.bytes()).isEqualTo(PNG);
        assertThat(seen).containsExactly("GET /slack/a.png auth=Bearer " + SLACK_BOT);
        assertThatThrownBy(() -> slack.fetch(new MediaRef("file", base + "/redirect-away", "image/png"), 1024))
                .hasMessageContaining("127.0.0.2 is not one of the platform's file hosts").hasMessageNotContaining(SLACK_BOT);
        assertThat(seen).hasSize(2);
        assertThatThrownBy(() -> slack.fetch(new MediaRef("file", base + "/slack/a.png", "image/png"), 10))
                .hasMessageContaining("over the 10-byte limit");
    }
}
