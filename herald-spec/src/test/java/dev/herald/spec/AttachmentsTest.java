package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A message that is only an attachment (a photo without a caption) is a turn like any other, not an empty message. */
class AttachmentsTest extends GatewaySpec {
    @Test
    void aPhotoWithoutCaption_reachesTheAgentAndTheTranscript_andIsAnswered() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        MessageEvent photo = new MessageEvent("ev-photo", alice, "", "tg-1", null,
                List.of(new MessageEvent.MediaRef("photo", "AgAD-photo-1", "image/jpeg")), MessageEvent.Origin.USER, h.clock.instant());

        assertThat(h.gateway.accept(photo)).isEqualTo(Admission.ACCEPTED);

        h.loopback("telegram").awaitSent(t -> t.startsWith("echo: [attachment: photo"), Harness.WAIT);
        assertThat(h.agent.calls()).singleElement().satisfies(r -> {
            assertThat(r.userMessage()).isEmpty();
            assertThat(r.attachments()).containsExactly(photo.media().getFirst());
        });
        List<TranscriptRow> rows = h.storage.transcripts().load(h.entry(alice).sessionId());
        assertThat(rows).filteredOn(r -> r.role() == Role.USER).singleElement().satisfies(r -> {
            assertThat(r.content()).isEmpty();
            assertThat(r.attachments()).containsExactly(photo.media().getFirst());
        });
    }

    @Test
    void aCaptionedDocument_keepsTheCaptionFirst() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        MessageEvent doc = new MessageEvent("ev-doc", alice, "summarise this", "tg-2", null,
                List.of(new MessageEvent.MediaRef("document", "BQAD-doc-2", null)), MessageEvent.Origin.USER, h.clock.instant());

        h.gateway.accept(doc);

        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.messages()).containsExactly("summarise this");
        assertThat(h.agent.calls().getFirst().attachments()).containsExactly(doc.media().getFirst());
    }
}
