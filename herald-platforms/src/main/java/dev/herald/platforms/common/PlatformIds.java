package dev.herald.platforms.common;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/**
 * The one rule for ids that arrive from a platform (chat, user, thread, message ids): 1-128 characters of
 * letters, digits and {@code _ . : @ + = -}, never {@code ..}. Every platform's real ids fit (Telegram's
 * numbers, Discord's snowflakes, Slack's {@code C0123}/{@code 1700000000.000100}, WeChat's
 * {@code wxid_…@im.wechat}); anything else is not an id that platform sends, and is treated as missing, because
 * ids end up in session keys, file names and REST paths.
 */
public final class PlatformIds {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:@+=-]{1,128}");

    private PlatformIds() {
    }

    /** {@code id} when it is a usable id, else null. */
    public static String clean(String id) {
        return id != null && ID.matcher(id).matches() && !id.contains("..") ? id : null;
    }

    /** The text of {@code node} when it is a string or an integer that is a usable id, else null. */
    public static String of(JsonNode node) {
        if (node == null || !(node.isTextual() || node.isIntegralNumber())) {
            return null;
        }
        return clean(node.isTextual() ? node.asText() : node.bigIntegerValue().toString());
    }
}
