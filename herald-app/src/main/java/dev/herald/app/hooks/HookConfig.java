package dev.herald.app.hooks;

import dev.herald.core.config.ClosestKey;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One entry of {@code hooks:}: a command to run or a URL to POST to when one of its lifecycle events happens, with the
 * event as JSON. A hook never holds up a turn: it runs in the background, and a slow or failing one is only logged.
 * Values of {@code headers} are secrets: never printed or logged, and never part of a payload.
 */
public record HookConfig(
        @Doc("the events it runs on: session.started, turn.completed, turn.failed, approval.requested, gateway.started, gateway.stopping")
        List<String> events,
        @Doc("program and arguments to run (no shell); it reads the event's JSON on stdin, HERALD_EVENT names the event")
        List<String> command,
        @Doc("http:// or https:// URL the event's JSON is POSTed to, instead of a command")
        String url,
        @Doc("HTTP headers for url (values are secrets)")
        Map<String, Secret> headers,
        @Doc("seconds one run may take; a command still running then is killed")
        double timeoutSeconds) implements Validated {

    public static final double DEFAULT_TIMEOUT_SECONDS = 10;

    public HookConfig {
        events = events == null ? List.of() : List.copyOf(events);
        command = command == null ? List.of() : List.copyOf(command);
        headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    public static HookConfig defaults() {
        return new HookConfig(List.of(), List.of(), null, Map.of(), DEFAULT_TIMEOUT_SECONDS);
    }

    public Duration timeout() {
        return Duration.ofMillis(Math.round(timeoutSeconds * 1000));
    }

    /** The events, as named (unknown names are refused by {@link #validate}). */
    public List<HookEvent> eventSet() {
        return events.stream().map(HookEvent::named).flatMap(java.util.Optional::stream).distinct().toList();
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(!events.isEmpty(), "events", "must name at least one event: " + HookEvent.names());
        for (int i = 0; i < events.size(); i++) {
            String name = events.get(i);
            check.require(HookEvent.named(name).isPresent(), "events[" + i + "]",
                    "is not an event: \"" + name + "\"" + ClosestKey.to(String.valueOf(name), List.of(HookEvent.names().split(", ")))
                            .map(k -> "; did you mean " + k + "?").orElse("; use one of " + HookEvent.names()));
        }
        boolean hasCommand = !command.isEmpty();
        boolean hasUrl = url != null && !url.isBlank();
        check.require(hasCommand != hasUrl, "command", "give either command (a program and its arguments) or url, not both or neither");
        if (hasCommand) {
            check.require(command.get(0) != null && !command.get(0).isBlank(), "command[0]", "must name the program to run");
        }
        if (hasUrl) {
            check.require(ConfigChecks.isHttpUrl(url), "url", "must be an http:// or https:// URL with a host, was \"" + url + "\"");
        }
        check.require(headers.isEmpty() || hasUrl, "headers", "are sent with url only; this hook has a command");
        check.require(Double.isFinite(timeoutSeconds) && timeoutSeconds >= 0.1 && timeoutSeconds <= 3600, "timeout_seconds",
                "must be 0.1 to 3600 seconds, was " + ConfigChecks.number(timeoutSeconds));
    }
}
