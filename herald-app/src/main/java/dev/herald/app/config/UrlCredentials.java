package dev.herald.app.config;

import dev.herald.core.config.Secret;
import dev.herald.core.config.ConfigException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refuses credentials written into a URL anywhere in the configuration ({@code https://user:pass@host/...}, and
 * {@code https://token@host} on web schemes), before any other check can quote the value. A URL is not a
 * secret: it is printed by {@code config check}, logged at start, shown in error messages and on the admin page,
 * so a password inside one leaks everywhere. The message names the key and never the value. Values of secret
 * keys ({@link Secret}: an MCP server's {@code env} and {@code headers}) are exempt; they are masked everywhere.
 */
final class UrlCredentials {
    /** A value that starts with {@code scheme://authority}, the authority ending at a path, query, space or the end. */
    private static final Pattern URL = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*(?::[A-Za-z][A-Za-z0-9+.-]*)*)://([^/?#\\s]*)");
    private static final List<String> WEB = List.of("http", "https", "ws", "wss");

    private UrlCredentials() {
    }

    /** Walks every value of {@code config}; the first URL with credentials stops the load. */
    static void check(HeraldConfig config, Provenance provenance) {
        walk(config, "", provenance);
    }

    /** Whether {@code value} is a URL that carries a user and password (any scheme), or any user part (web schemes). */
    static boolean carriesCredentials(String value) {
        Matcher m = URL.matcher(value.strip());
        if (!m.find()) {
            return false;
        }
        String authority = m.group(2);
        int at = authority.lastIndexOf('@');
        if (at < 0) {
            return false;
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        return authority.substring(0, at).contains(":") || WEB.contains(scheme) || scheme.startsWith("jdbc:");
    }

    private static void walk(Object value, String path, Provenance provenance) {
        switch (value) {
            case null -> {
            }
            case Secret ignored -> {
            }
            case String s -> {
                if (carriesCredentials(s)) {
                    throw ConfigException.at(provenance.where(path), path + " must not carry credentials in the URL (user:password@ or a token@"
                            + " before the host): URLs are printed and logged; remove them and " + nextStep(path));
                }
            }
            case Record r -> {
                for (Sections.Key key : Sections.keysOf(r)) {
                    walk(key.valueIn(r), Provenance.child(path, key.name()), provenance);
                }
            }
            case List<?> list -> {
                for (int i = 0; i < list.size(); i++) {
                    walk(list.get(i), path + "[" + i + "]", provenance);
                }
            }
            case Map<?, ?> map -> map.forEach((k, v) -> walk(v, Provenance.child(path, String.valueOf(k)), provenance));
            default -> {
            }
        }
    }

    /** Where the credential belongs instead. */
    private static String nextStep(String path) {
        if (path.equals("model.base_url")) {
            return "set model.api_key (e.g. api_key: ${OPENAI_API_KEY})";
        }
        if (path.equals("store.url")) {
            return "set store.user and store.password (e.g. password: ${HERALD_STORE_PASSWORD})";
        }
        if ((path.startsWith("mcp_servers[") || path.startsWith("hooks[")) && path.endsWith(".url")) {
            return "send it in " + Provenance.parent(path) + ".headers (e.g. Authorization: \"Bearer ${TOKEN}\")";
        }
        return "give the credential in the section's key, token or secret setting, from an environment variable";
    }
}
