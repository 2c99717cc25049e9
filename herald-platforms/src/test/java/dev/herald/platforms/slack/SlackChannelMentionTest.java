package dev.herald.platforms.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.ChannelOverrides;
import dev.herald.core.platform.MessageEvent;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A Slack channel's own {@code require_mention} (platforms.slack.channels.<id>) over the platform's, as Slack's events read. */
class SlackChannelMentionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode channelMessage(String channel, String ts, String text) {
        return JSON.createObjectNode().put("type", "message").put("channel", channel).put("channel_type", "channel").put("user", "U1")
                .put("ts", ts).put("text", text);
    }

    @Test
    void aChannelWithoutMentionsNeeded_takesEveryMessage_whileOtherChannelsStillNeedTheMention() {
        SlackMessages messages = new SlackMessages(SlackSettings.of("xapp-1", "xoxb-1").withRequireMention(true), Clock.systemUTC());
        messages.self("UBOT", "BBOT");
        messages.useChannels((platform, chatId) -> chatId.equals("CFREE")
                ? Optional.of(new ChannelOverrides.Channel(null, null, null, null, false)) : Optional.empty());

        Optional<MessageEvent> free = messages.normalise(channelMessage("CFREE", "1.0001", "no mention here"));
        Optional<MessageEvent> other = messages.normalise(channelMessage("COTHER", "1.0002", "no mention here"));
        Optional<MessageEvent> mentioned = messages.normalise(channelMessage("COTHER", "1.0003", "<@UBOT> and here"));

        assertThat(free).map(MessageEvent::text).hasValue("no mention here");
        assertThat(other).isEmpty();
        assertThat(mentioned).map(MessageEvent::text).hasValue("and here");
        assertThat(List.of(free.get().source().chatId(), mentioned.get().source().chatId())).containsExactly("CFREE", "COTHER");
    }
}
