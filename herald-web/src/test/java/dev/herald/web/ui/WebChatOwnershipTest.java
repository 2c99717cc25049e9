package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.OutboundFile;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.MediaStore;
import dev.herald.web.access.WebAccess;
import dev.herald.web.ui.AccountsHttpTest.Browser;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What belongs to one account stays theirs across a restart and an upgrade: an upload's owner is kept beside the file
 * (another account's reference is refused after a restart as one never uploaded), a reply file's link is checked
 * against its conversation's owner after a restart, the conversations from before accounts become the first admin's
 * (a later admin does not take them, a user never sees them), and a scheduled job made in one person's conversation is
 * unknown in another's while admins see and manage all.
 */
class WebChatOwnershipTest {
    private static final long IMAGE_LIMIT = 1024 * 1024;

    @TempDir
    Path dir;

    private WebUiFixture start(ScriptedAgent agent) {
        WebUiFixture fx = WebUiFixture.withSchedules(dir.resolve("home"), agent);
        fx.ui.chat().useMediaStore(MediaStore.in(dir.resolve("media")), IMAGE_LIMIT);
        return fx;
    }

    private static HttpResponse<String> send(Browser b, String conversation, String clientId, String text, String attachment) {
        return b.post("/chat/api/send", "{\"conversation\":\"" + conversation + "\",\"clientId\":\"" + clientId + "\",\"text\":"
                + WebUiFixture.quote(text) + (attachment == null ? "" : ",\"attachments\":[{\"ref\":\"" + attachment + "\"}]") + "}");
    }

    private static String upload(Browser b) {
        HttpResponse<String> up = b.send(HttpRequest.newBuilder(URI.create(b.base + "/chat/api/upload")).header("Content-Type", "image/png")
                .header(WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofByteArray(WebChatImageTest.PNG)));
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        return WebUiFixture.json(up).path("ref").asText();
    }

    private static JsonNode awaitReply(Browser b, String conversation, String text) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode t = null;
        while (System.nanoTime() < deadline) {
            t = WebUiFixture.json(b.get("/chat/api/transcript?c=" + conversation));
            if (t.path("rows").toString().contains(text)) {
                return t;
            }
            sleep();
        }
        throw new AssertionError("no reply '" + text + "' within 20 s: " + t);
    }

    /** Sends a chat command as the page does, with the conversation's stream open, and returns the answer the stream shows. */
    private static String command(Browser b, String conversation, String text) throws Exception {
        HttpResponse<Stream<String>> stream = b.http.send(HttpRequest.newBuilder(URI.create(b.base + "/chat/api/stream?c=" + conversation))
                .GET().build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(stream.statusCode()).isEqualTo(200);
        BlockingQueue<JsonNode> frames = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try {
                stream.body().filter(l -> l.startsWith("data: ")).forEach(l -> frames.add(WebUiFixture.json(l.substring(6))));
            } catch (RuntimeException e) {
                // the stream was closed by the test
            }
        });
        try {
            JsonNode hello = frames.poll(20, TimeUnit.SECONDS);
            assertThat(hello).as("the stream's hello").isNotNull();
            HttpResponse<String> sent = send(b, conversation, "c" + System.nanoTime(), text, null);
            assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode f = frames.poll(100, TimeUnit.MILLISECONDS);
                if (f != null && f.path("type").asText().equals("command")) {
                    return f.path("text").asText();
                }
            }
            throw new AssertionError("no answer to '" + text + "' within 20 s");
        } finally {
            stream.body().close();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Test
    void afterARestart_anotherAccountsUploadAndReplyFile_areRefusedAsNeverMade_whileTheOwnerStillUsesThem() throws Exception {
        ScriptedAgent agent = new ScriptedAgent();
        Path report = Files.createDirectories(dir.resolve("workspace")).resolve("bob.txt");
        Files.writeString(report, "bob's private report");
        agent.replyWithFiles("Here is your report.", new OutboundFile(report.toRealPath().toString(), "bob.txt", "text/plain", 20, null));
        String bobsUpload;
        String fileUrl = null;
        try (WebUiFixture fx = start(agent)) {
            Browser admin = new Browser(fx.baseUrl());
            admin.post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");
            admin.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}");
            admin.post("/admin/api/users/create", "{\"name\":\"eve\",\"password\":\"eve's password\"}");
            Browser bob = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            bobsUpload = upload(bob);
            assertThat(send(bob, "bobs-conv-1", "m-bob-0001", "my report please", null).statusCode()).isEqualTo(200);
            for (JsonNode row : awaitReply(bob, "bobs-conv-1", "Here is your report.").path("rows")) {
                if (row.path("files").size() > 0) {
                    fileUrl = row.path("files").path(0).path("url").asText();
                }
            }
            assertThat(fileUrl).isNotNull();
            fx.awaitIdle();
        }
        Path ownerFile = dir.resolve("media").resolve(bobsUpload.substring(MediaStore.PREFIX.length()) + ".owner");
        assertThat(ownerFile).hasContent("u:bob");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ownerFile))).isEqualTo("rw-------");

        try (WebUiFixture fx = start(new ScriptedAgent())) {
            Browser bob = new Browser(fx.baseUrl());
            Browser eve = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(eve.signIn("eve", "eve's password").statusCode()).isEqualTo(200);

            HttpResponse<String> withBobs = send(eve, "eves-conv-1", "m-eve-0001", "with bob's picture", bobsUpload);
            String never = MediaStore.PREFIX + "0123456789abcdef0123456789abcdef";
            HttpResponse<String> withNone = send(eve, "eves-conv-1", "m-eve-0002", "with no picture", never);
            assertThat(withBobs.statusCode()).as(withBobs.body()).isEqualTo(400);
            assertThat(withBobs.body().replace(bobsUpload, "REF"))
                    .as("the same answer as for a reference never uploaded").isEqualTo(withNone.body().replace(never, "REF"));
            assertThat(eve.get(fileUrl).statusCode()).isEqualTo(404);
            assertThat(eve.get(fileUrl).body()).doesNotContain("bob's private report");
            assertThat(fx.storage.sessions().search(new dev.herald.core.session.SessionQuery(dev.herald.core.session.SessionQuery.State.ALL,
                    java.util.Optional.empty(), java.util.Optional.empty(), 50, 0))).as("eve's refused sends made no conversation")
                    .noneMatch(e -> e.origin() != null && e.origin().chatId().equals("eves-conv-1"));

            HttpResponse<String> download = bob.get(fileUrl);
            assertThat(download.statusCode()).isEqualTo(200);
            assertThat(download.body()).isEqualTo("bob's private report");
            assertThat(send(bob, "bobs-conv-1", "m-bob-0002", "here is my picture again", bobsUpload).statusCode()).isEqualTo(200);
            awaitReply(bob, "bobs-conv-1", "echo: here is my picture again");
            fx.awaitIdle();
        }
    }

    @Test
    void theConversationsFromBeforeAccounts_becomeTheFirstAdmins_notALaterAdminsNorAUsers() throws Exception {
        try (WebUiFixture fx = start(new ScriptedAgent())) {
            Browser before = new Browser(fx.baseUrl());
            assertThat(send(before, "old-conv-1", "m-old-0001", "hello from before accounts", null).statusCode()).isEqualTo(200);
            awaitReply(before, "old-conv-1", "echo: hello from before accounts");
            assertThat(command(before, "old-conv-1", "/schedule add every 1h water the plants")).startsWith("\u23f0 Scheduled");
            fx.awaitIdle();
            assertThat(fx.storage.sessions().find(fx.key("old-conv-1")).orElseThrow().origin().userId()).isEqualTo("web");
            fx.storage.memories().add("webchat:web", "likes green tea", "test", dev.herald.core.memory.Memory.Status.ACTIVE,
                    java.time.Instant.now());

            Browser ann = new Browser(fx.baseUrl());
            assertThat(ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}").statusCode()).isEqualTo(200);
            assertThat(fx.storage.sessions().find(fx.key("old-conv-1")).orElseThrow().origin().userId()).isEqualTo("u:ann");
            assertThat(fx.schedules.all()).singleElement().satisfies(j -> assertThat(j.source().userId()).isEqualTo("u:ann"));
            assertThat(fx.storage.memories().list("webchat:u:ann", true, 10)).extracting(dev.herald.core.memory.Memory::text)
                    .containsExactly("likes green tea");
            assertThat(fx.storage.memories().list("webchat:web", true, 10)).isEmpty();
            assertThat(ann.get("/chat/api/conversations").body()).contains("old-conv-1");
            assertThat(ann.get("/chat/api/transcript?c=old-conv-1").body()).contains("hello from before accounts");

            assertThat(ann.post("/admin/api/users/create", "{\"name\":\"carl\",\"password\":\"carl's password\",\"role\":\"admin\"}")
                    .statusCode()).isEqualTo(200);
            assertThat(ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}").statusCode()).isEqualTo(200);
            Browser bob = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(bob.get("/chat/api/conversations").body()).doesNotContain("old-conv-1");
            assertThat(bob.get("/chat/api/transcript?c=old-conv-1").statusCode()).isEqualTo(404);
            assertThat(fx.storage.sessions().find(fx.key("old-conv-1")).orElseThrow().origin().userId()).as("the later admin took nothing")
                    .isEqualTo("u:ann");
            fx.awaitIdle();
        }
        try (WebUiFixture fx = start(new ScriptedAgent())) {
            assertThat(fx.storage.sessions().find(fx.key("old-conv-1")).orElseThrow().origin().userId()).as("after a restart")
                    .isEqualTo("u:ann");
            Browser ann = new Browser(fx.baseUrl());
            assertThat(ann.signIn("ann", "ann's long password").statusCode()).isEqualTo(200);
            assertThat(send(ann, "old-conv-1", "m-ann-0001", "still mine", null).statusCode()).isEqualTo(200);
            awaitReply(ann, "old-conv-1", "echo: still mine");
            fx.awaitIdle();
            assertThat(fx.storage.sessions().find(fx.key("old-conv-1")).orElseThrow().origin().userId()).isEqualTo("u:ann");
        }
    }

    @Test
    void aJobMadeInOnePersonsConversation_isUnknownInAnothers_whileAnAdminSeesAndManagesIt() throws Exception {
        try (WebUiFixture fx = start(new ScriptedAgent())) {
            Browser root = new Browser(fx.baseUrl());
            root.post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");
            root.post("/admin/api/users/create", "{\"name\":\"ann\",\"password\":\"ann's password\"}");
            root.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}");
            Browser ann = new Browser(fx.baseUrl());
            Browser bob = new Browser(fx.baseUrl());
            assertThat(ann.signIn("ann", "ann's password").statusCode()).isEqualTo(200);
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);

            String added = command(ann, "anns-conv-1", "/schedule add every 1h water the plants");
            assertThat(added).startsWith("\u23f0 Scheduled ");
            String id = added.substring("\u23f0 Scheduled ".length(), added.indexOf(':'));
            assertThat(command(ann, "anns-conv-1", "/schedule list")).contains(id).contains("water the plants");

            assertThat(command(bob, "bobs-conv-1", "/schedule list")).isEqualTo("No scheduled jobs in this chat. /schedule add creates one.");
            assertThat(command(bob, "bobs-conv-1", "/schedule list all")).isEqualTo("No scheduled jobs in this chat. /schedule add creates one.");
            for (String action : List.of("pause", "resume", "delete")) {
                assertThat(command(bob, "bobs-conv-1", "/schedule " + action + " " + id)).isEqualTo("There is no job " + id + "; /schedule list shows them.");
                assertThat(command(bob, "bobs-conv-1", "/schedule " + action + " zzzzzz")).isEqualTo("There is no job zzzzzz; /schedule list shows them.");
            }
            assertThat(fx.schedules.find(id).orElseThrow().status()).isEqualTo("active");

            assertThat(command(root, "roots-conv-1", "/schedule list all")).startsWith("All scheduled jobs:").contains(id);
            assertThat(command(root, "roots-conv-1", "/schedule pause " + id)).isEqualTo("\u23f8 Paused " + id + ".");
            assertThat(fx.schedules.find(id).orElseThrow().status()).isEqualTo("paused");
            assertThat(command(ann, "anns-conv-1", "/schedule delete " + id)).isEqualTo("\ud83d\uddd1 Deleted " + id + ".");
            assertThat(fx.schedules.all()).isEmpty();
            fx.awaitIdle();
        }
    }
}
