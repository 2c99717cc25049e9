package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Photos a chat delivered (attachment lines in the conversation) reach a vision model as image parts, fetched through
 * their platform's fetcher; a text-only model keeps the lines and the user is told once.
 */
class VisionTest {
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");
    final FakeModelServer fake = FakeModelServer.start();
    final List<String> fetched = new CopyOnWriteArrayList<>();
    /** The platform's files by reference; the fetcher is the platform's edge, so this stands in for its file API. */
    final Map<String, byte[]> files = Map.of("p1", PNG, "p2", PNG, "p3", PNG, "p4", PNG, "p5", PNG, "pdf", "%PDF-1.4".getBytes());

    final MediaFetcher telegram = (ref, max) -> {
        fetched.add(ref.ref());
        byte[] bytes = files.get(ref.ref());
        if (bytes == null) {
            throw new IOException("telegram - no such file");
        }
        return new MediaFetcher.Fetched(bytes, ref.mimeType());
    };

    @AfterEach
    void close() {
        fake.close();
    }

    private ModelAgent agent(boolean vision) {
        return new ModelAgent(Harness.client(fake), AgentSettings.DEFAULT.withVision(vision, 1024), ToolRegistry.none(),
                p -> p.equals("telegram") ? Optional.of(telegram) : Optional.empty());
    }

    private static TurnRequest turn(String text, ChatMessage... history) {
        return new TurnRequest("s1", "agent:main:telegram:dm:1", List.of(history), text, true, "telegram");
    }

    /** A request whose message carries {@code files} as data, as every message stored since attachments are data does. */
    private static TurnRequest turn(String text, List<MediaRef> files, ChatMessage... history) {
        return new TurnRequest("s1", "agent:main:telegram:dm:1", List.of(history), text, true, "telegram", null, files);
    }

    static MediaRef photoRef(String ref) {
        return new MediaRef("photo", ref, "image/jpeg");
    }

    /** An attachment as a line of the text: how messages stored before attachments were data keep them. */
    static String photo(String ref) {
        return "[attachment: photo (image/jpeg), ref " + ref + "]";
    }

    @Test
    void visionModel_getsTheNewestFourPhotosAsImageParts_fromDataAndFromLegacyLines() {
        fake.enqueue(Reply.text("I see five cats."));

        TurnOutcome outcome = agent(true).runTurn(turn("and these?", List.of(photoRef("p4"), photoRef("p5"), photoRef("pdf")),
                ChatMessage.user(photo("p1")), ChatMessage.assistant("a cat"),
                ChatMessage.user("more", List.of(), List.of(photoRef("p2"), photoRef("p3")))),
                new RecordingListener(), null);

        assertThat(outcome).isInstanceOf(TurnOutcome.Final.class);
        String dataUrl = "data:image/png;base64," + Base64.getEncoder().encodeToString(PNG);
        assertThat(fake.lastRequest().imageUrls()).containsExactly(dataUrl, dataUrl, dataUrl);
        assertThat(fake.lastRequest().lastUserMessage()).contains(photo("p5")).contains(photo("pdf"));
        assertThat(fetched).containsExactlyInAnyOrder("pdf", "p5", "p4", "p3");
        assertThat(fake.lastRequest().messages().get(0).content()).isEqualTo(photo("p1"));
    }

    @Test
    void textOnlyModel_keepsTheLine_andTellsTheUserOnce() {
        fake.enqueue(Reply.text("A photo, I guess."), Reply.text("Still guessing."));
        ModelAgent agent = agent(false);

        TurnOutcome first = agent.runTurn(turn("look", List.of(photoRef("p1"))), new RecordingListener(), null);
        String told = first.replyText();
        TurnOutcome second = agent.runTurn(turn("again", List.of(photoRef("p2")), ChatMessage.user("look\n" + photo("p1")),
                ChatMessage.assistant(told)), new RecordingListener(), null);

        assertThat(fake.requests()).allSatisfy(r -> assertThat(r.imageUrls()).isEmpty());
        assertThat(fetched).isEmpty();
        assertThat(told).startsWith("A photo, I guess.").contains("cannot see images").contains("/model");
        assertThat(second.replyText()).isEqualTo("Still guessing.");
    }
}
