package dev.herald.agent.model;

import dev.herald.core.retry.Backoff;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.testkit.model.FakeModelServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/** Clients for tests: fast backoff, short timeouts, pointed at a fake server. */
final class Clients {
    static final String KEY = "sk-test-0123456789abcdef";
    static final Backoff FAST = Backoff.jittered(Duration.ofMillis(10), Duration.ofMillis(40), Duration.ofSeconds(5));

    private Clients() {
    }

    static ModelSettings settings(URI baseUrl) {
        return new ModelSettings(baseUrl, KEY, "llama3.1", Duration.ofSeconds(2), Duration.ofSeconds(3), 2);
    }

    static OpenAiCompatibleClient against(FakeModelServer fake) {
        return new OpenAiCompatibleClient(settings(fake.baseUrl()), FAST);
    }

    static OpenAiCompatibleClient against(ModelSettings settings) {
        return new OpenAiCompatibleClient(settings, FAST);
    }

    static ModelRequest streamed(String userText) {
        return ModelRequest.streaming(List.of(ChatMessage.system("be brief"), ChatMessage.user(userText)));
    }

    static ModelRequest blocking(String userText) {
        return ModelRequest.blocking(List.of(ChatMessage.user(userText)));
    }

    /** The exception a call ends with; fails when it succeeds. */
    static ModelException failure(ModelClient client, ModelRequest request, StreamObserver observer, Interrupt interrupt) {
        try {
            ModelResponse response = client.complete(request, observer, interrupt);
            throw new AssertionError("expected the call to fail, but it answered " + response);
        } catch (ModelException e) {
            return e;
        }
    }

    static ModelException failure(ModelClient client, ModelRequest request) {
        return failure(client, request, new Recorder(), new Interrupt());
    }
}
