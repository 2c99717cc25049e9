package dev.herald.platforms.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The one rule for the ids Matrix sends (room, event, user ids, aliases, media ids): a sigil, then 1-255 characters
 * of the grammar's letters ({@code A-Z a-z 0-9 . _ ~ + / = : - [ ]}), never {@code ..}, no spaces or control
 * characters. Anything else is not an id a homeserver sends and is treated as missing: ids end up in session keys and,
 * percent-encoded, in request paths. Room versions 1-3 use {@code /} and {@code +} in event ids, so those are kept.
 */
final class MatrixIds {
    private static final Pattern ROOM = Pattern.compile("![A-Za-z0-9._~+/=\\-]{1,255}:[A-Za-z0-9.\\-\\[\\]:]{1,255}");
    private static final Pattern ALIAS = Pattern.compile("#[^\\s:#]{1,255}:[A-Za-z0-9.\\-\\[\\]:]{1,255}");
    private static final Pattern EVENT = Pattern.compile("\\$[A-Za-z0-9._~+/=:\\-]{1,255}");
    private static final Pattern SERVER = Pattern.compile("[A-Za-z0-9.\\-\\[\\]:]{1,255}");
    private static final Pattern MEDIA = Pattern.compile("[A-Za-z0-9_\\-]{1,255}");

    private MatrixIds() {
    }

    static String room(JsonNode node) {
        return node != null && node.isTextual() ? room(node.asText()) : null;
    }

    static String room(String id) {
        return id != null && ROOM.matcher(id).matches() && !id.contains("..") ? id : null;
    }

    /** A room id or a room alias ({@code #room:server}); null for anything else. */
    static String roomOrAlias(String id) {
        if (id == null) {
            return null;
        }
        return room(id) != null ? id : ALIAS.matcher(id).matches() && !id.contains("..") && id.chars().noneMatch(c -> c < 0x20 || c == 0x7f)
                ? id : null;
    }

    static String event(JsonNode node) {
        if (node == null || !node.isTextual()) {
            return null;
        }
        String id = node.asText();
        return EVENT.matcher(id).matches() && !id.contains("..") ? id : null;
    }

    static String user(JsonNode node) {
        if (node == null || !node.isTextual()) {
            return null;
        }
        String id = node.asText();
        return MatrixSettings.USER_ID.matcher(id).matches() && !id.contains("..") ? id : null;
    }

    /** {@code mxc://server/mediaId} split into its two parts, or null when it is not one. */
    static String[] mxc(String uri) {
        if (uri == null || !uri.startsWith("mxc://")) {
            return null;
        }
        String rest = uri.substring("mxc://".length());
        int slash = rest.indexOf('/');
        if (slash <= 0) {
            return null;
        }
        String server = rest.substring(0, slash);
        String media = rest.substring(slash + 1);
        return SERVER.matcher(server).matches() && !server.contains("..") && MEDIA.matcher(media).matches() ? new String[] {server, media}
                : null;
    }

    /** {@code s} as one path segment. */
    static String path(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
