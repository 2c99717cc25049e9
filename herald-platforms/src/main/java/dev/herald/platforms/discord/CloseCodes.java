package dev.herald.platforms.discord;

/**
 * What a Gateway close code means for the next connection: resume the session, start a new one, or stop
 * for good with a message an operator can act on. Discord's table: 4004 bad token, 4010-4014 bad
 * shard/version/intents are final; 4007 and 4009 need a new session; everything else may resume.
 */
final class CloseCodes {
    private CloseCodes() {
    }

    /** The next step after a close. */
    enum Next {
        RESUME,
        IDENTIFY,
        GIVE_UP
    }

    static Next next(int code) {
        return switch (code) {
            case 4004, 4010, 4011, 4012, 4013, 4014 -> Next.GIVE_UP;
            case 4003, 4007, 4009 -> Next.IDENTIFY;
            default -> Next.RESUME;
        };
    }

    /** The operator message for a final close; names the key to check, never its value. */
    static String fatalMessage(int code) {
        return switch (code) {
            case 4004 -> "discord - the bot token was rejected (close 4004); check platforms.discord.token";
            case 4014 -> "discord - Discord refused the gateway intents Herald needs (close 4014); enable MESSAGE CONTENT INTENT "
                    + "under Bot > Privileged Gateway Intents in the Discord developer portal";
            case 4013 -> "discord - the gateway rejected the intents value (close 4013); this is a Herald bug, please report it";
            case 4012 -> "discord - the gateway rejected API version 10 (close 4012); check platforms.discord.gateway_url";
            case 4011 -> "discord - Discord requires sharding for this bot (close 4011): it is in too many guilds for one "
                    + "connection, which Herald does not support";
            case 4010 -> "discord - the gateway rejected the shard (close 4010)";
            default -> "discord - the gateway closed the connection for good (close " + code + ")";
        };
    }

    /** A short description for log lines about closes that are not final. */
    static String describe(int code, String reason) {
        String r = reason == null || reason.isBlank() ? "" : ": " + reason;
        return "close " + code + r;
    }
}
