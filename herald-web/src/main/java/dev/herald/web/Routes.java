package dev.herald.web;

import io.javalin.config.RoutesConfig;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One feature's contribution to the {@link WebServer}: the API platform, webhooks, the web chat, admin
 * pages, metrics. Javalin 7 takes routes only while it is being configured, so every contribution is
 * added before the server starts and registers itself when it does.
 */
public interface Routes {

    /** A short name for logs, such as {@code api_server}. */
    String name();

    /** Registers this feature's routes (and only those; paths must not collide with other features). */
    void register(RoutesConfig routes);

    /** A contribution made of a name and a registration lambda. */
    static Routes of(String name, Consumer<RoutesConfig> registration) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(registration, "registration");
        return new Routes() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void register(RoutesConfig routes) {
                registration.accept(routes);
            }
        };
    }
}
