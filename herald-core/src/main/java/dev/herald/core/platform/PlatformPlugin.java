package dev.herald.core.platform;

import dev.herald.core.config.PlatformAccess;

/**
 * A chat platform as a plug-in, found with {@link java.util.ServiceLoader}: Herald's own are listed in
 * {@code META-INF/services/dev.herald.core.platform.PlatformPlugin} of herald-platforms, and a jar dropped into
 * {@code $HERALD_HOME/plugins/} is read at start the same way. A plug-in is three things: its type, its settings, and a
 * factory for its adapter.
 *
 * <p>The settings are one record, bound by the configuration loader from {@code platforms.<type>}: each component is a
 * key in snake_case with its {@link dev.herald.core.config.Doc}, a secret is a {@link dev.herald.core.config.Secret}, an
 * environment variable that overrides a key is named by {@link dev.herald.core.config.EnvOverride}, and the record's
 * {@link dev.herald.core.config.Validated#validate} states its rules. It declares the access keys every platform shares
 * ({@link PlatformAccess}: {@code enabled}, {@code allowed_users}, {@code allow_all_users}, {@code admins},
 * {@code home_channel}, {@code unauthorized_dm}), which the wiring turns into the platform's access policy and home
 * channel. The configuration reference, {@code herald config check} and the effective-configuration log line all come
 * from the record.
 *
 * @param <S> the settings record
 */
public interface PlatformPlugin<S extends Record & PlatformAccess> {

    /**
     * The platform's type: its {@link Platform} id and its key under {@code platforms:} ({@code telegram}). 1-32 lower-case
     * letters, digits or '_', starting with a letter; unique among the plug-ins and not one of the web surfaces'
     * ({@code api_server}, {@code webchat}, {@code webhook}).
     */
    String type();

    /** The settings record bound from {@code platforms.<type>}. */
    Class<S> settingsType();

    /** Every key at its default: what an absent or empty {@code platforms.<type>} section means. */
    S defaults();

    /**
     * The chat id a key of {@code platforms.<type>.channels} stands for, so that its settings meet the chat's messages
     * (IRC folds case: {@code #Herald} is chat {@code #herald}). By default the key as written.
     *
     * @throws IllegalArgumentException with the reason, for a key that cannot name one chat's settings on this platform
     */
    default String chatIdOfChannel(String key) {
        return key;
    }

    /**
     * The adapter for enabled, validated {@code settings}; called once per process before the gateway starts it. It may
     * register what else the platform offers in {@code context} (its media fetcher). A setting the record's validation
     * cannot judge alone fails here with an {@link IllegalArgumentException} naming the key.
     */
    PlatformAdapter create(S settings, PlatformContext context);
}
