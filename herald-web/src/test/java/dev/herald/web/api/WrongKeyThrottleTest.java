package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.KEY;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.web.access.AuthThrottle;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Brute force on the bearer key: every wrong key is logged (address, never the key), and a client that keeps guessing gets 429s. */
class WrongKeyThrottleTest {
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private ApiFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
        fx = ApiFixture.start(ScriptedAgent.replying("x"));
    }

    @AfterEach
    void tearDown() {
        fx.close();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    }

    private HttpResponse<String> models(HttpClient client, String key) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/v1/models")).timeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + key).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void twoThousandWrongKeys_firstOnesAre401_theRest429WithRetryAfter_andTheLogIsBoundedAndKeyFree() throws Exception {
        List<String> guesses = new ArrayList<>();
        int unauthorized = 0;
        int throttled = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < 2_000; i++) {
            String guess = "sk-guess-" + String.format("%06d", i) + "-zz";
            guesses.add(guess);
            HttpResponse<String> r = models(fx.http, guess);
            if (r.statusCode() == 401) {
                unauthorized++;
            } else {
                assertThat(r.statusCode()).as("answer to guess " + i).isEqualTo(429);
                assertThat(r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(0L)).isBetween(1L, 6L);
                assertThat(json(r.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
                throttled++;
            }
        }
        long seconds = Duration.ofNanos(System.nanoTime() - t0).toSeconds();
        HttpResponse<String> rightKeyWhileThrottled = models(fx.http, KEY);
        HttpClient otherClient = HttpClient.newBuilder().localAddress(InetAddress.getByName("127.0.0.2")).build();
        HttpResponse<String> rightKeyFromElsewhere = models(otherClient, KEY);

        assertThat(unauthorized).as("wrong keys answered 401 before the throttle (one more per 6 s of test time)")
                .isBetween(AuthThrottle.BURST, AuthThrottle.BURST + 1 + (int) (seconds / AuthThrottle.REFILL.toSeconds()));
        assertThat(throttled).isEqualTo(2_000 - unauthorized);
        assertThat(rightKeyWhileThrottled.statusCode()).as("a throttled client learns nothing about any key").isEqualTo(429);
        assertThat(rightKeyFromElsewhere.statusCode()).as("another client is not affected").isEqualTo(200);

        List<String> lines = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        List<String> aboutKeys = lines.stream().filter(l -> l.contains("key") && l.contains("127.0.0.1")).toList();
        assertThat(aboutKeys).as("wrong keys are logged with the address").hasSizeGreaterThanOrEqualTo(AuthThrottle.BURST);
        assertThat(aboutKeys.stream().filter(l -> l.contains("answered 429"))).as("the 429s are summed up, at most once a minute")
                .isNotEmpty().hasSizeLessThanOrEqualTo(2 + (int) (seconds / 60));
        assertThat(lines).as("log lines during 2,000 guesses").hasSizeLessThan(60);
        for (String line : lines) {
            assertThat(line).doesNotContain(KEY).doesNotContain("sk-guess-");
        }
    }

    @Test
    void requestsWithoutAKey_areNotCounted() {
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = fx.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/v1/models")).GET().build());
            assertThat(r.statusCode()).isEqualTo(401);
        }
        assertThat(models(fx.http, KEY).statusCode()).isEqualTo(200);
    }
}
