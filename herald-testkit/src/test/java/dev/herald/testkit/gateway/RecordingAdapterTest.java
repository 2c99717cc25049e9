package dev.herald.testkit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.testkit.MutableClock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordingAdapterTest {

    @Test
    void everyMethodOfTheAdapterContract_isPassedOn_defaultsIncluded() {
        List<String> missing = new ArrayList<>();
        for (Method m : PlatformAdapter.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                Method own = RecordingAdapter.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
                assertThat(own.getDeclaringClass()).isEqualTo(RecordingAdapter.class);
            } catch (NoSuchMethodException e) {
                missing.add(m.getName() + Arrays.toString(m.getParameterTypes()));
            }
        }
        assertThat(missing).as("PlatformAdapter methods the recording wrapper would not pass on to the real adapter").isEmpty();
    }

    @Test
    void send_recordsWhatThePlatformAccepted_andNothingItRefused() {
        LoopbackPlatform loopback = LoopbackPlatform.create(MutableClock.atNoon());
        List<RecordingAdapter.Sent> seen = new ArrayList<>();
        RecordingAdapter recording = new RecordingAdapter(loopback, 2, seen::add);
        OutboundMessage reply = new OutboundMessage(new ChatTarget("c1", null), "hi", MessageKind.REPLY, null, "e-1", 1, 1, "h1p1");

        SendResult accepted = recording.send(reply);
        loopback.onSend(m -> SendResult.failed("502 Bad Gateway", true));
        SendResult refused = recording.send(reply);

        assertThat(accepted.success()).isTrue();
        assertThat(refused.success()).isFalse();
        assertThat(seen).singleElement().satisfies(s -> {
            assertThat(s.message()).isEqualTo(reply);
            assertThat(s.messageId()).isEqualTo(accepted.messageId());
            assertThat(s.process()).isEqualTo(2);
        });
        assertThat(loopback.sent()).hasSize(1);
    }
}
