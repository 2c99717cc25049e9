package dev.herald.platforms.email;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code platforms.email:} a mailbox the agent reads over IMAP and answers from over SMTP. Who may write is set by the
 * shared access keys (addresses in {@code allowed_users}); {@code unauthorized_dm} defaults to {@code ignore}, since a
 * pairing mail to an unknown (possibly forged) sender is backscatter. Bound from the configuration, validated, then
 * only read; the adapter's time values, which are not configured, are its {@link Timing}.
 */
public record EmailSettings(
        @Doc("read a mailbox over IMAP and answer over SMTP")
        boolean enabled,
        @Doc("the agent's address: the From of every reply (e.g. herald@example.org); required when enabled")
        String address,
        Imap imap,
        Smtp smtp,
        @Doc("seconds between two checks of the inbox when the server does not offer IMAP IDLE")
        int pollSeconds,
        @Doc("answer only mail whose topmost Authentication-Results header (added by your receiving server) says dmarc=pass,"
                + " or dkim=pass for the From domain; From alone can be forged")
        boolean requireAuthenticationResults,
        @Doc("sender addresses (alice@example.org) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who mails the address talk to the agent")
        boolean allowAllUsers,
        @Doc("addresses that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what mail from an unknown sender gets: a pairing code by mail, or nothing (the default: a pairing mail to a forged sender is spam)")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** How a connection is protected: TLS from the first byte, STARTTLS after the greeting, or nothing (loopback only). */
    public enum Security {
        TLS,
        STARTTLS,
        NONE
    }

    /** {@code platforms.email.imap:} where mail is read. */
    public record Imap(
            @Doc("IMAP server host name (e.g. imap.example.org); required when email is enabled")
            String host,
            @Doc("IMAP port; 0 = the usual one (993 with tls, 143 otherwise)")
            int port,
            @Doc("tls (port 993), starttls (port 143) or none (only to a loopback host)")
            Security security,
            @Doc("IMAP user name; not set = the address")
            String username,
            @Doc("IMAP password (an app password where the provider has them); required when email is enabled")
            @EnvOverride({"EMAIL_IMAP_PASSWORD"})
            Secret password,
            @Doc("the folder read for new mail")
            String folder) {
        public Imap {
            security = security == null ? Security.TLS : security;
            password = password == null ? Secret.NONE : password;
            folder = folder == null || folder.isBlank() ? "INBOX" : folder;
        }

        public static Imap defaults() {
            return new Imap(null, 0, Security.TLS, null, Secret.NONE, "INBOX");
        }

        /** The port to connect to: the configured one, else the protocol's usual one. */
        int effectivePort() {
            return port != 0 ? port : security == Security.TLS ? 993 : 143;
        }
    }

    /** {@code platforms.email.smtp:} where replies are sent. */
    public record Smtp(
            @Doc("SMTP server host name (e.g. smtp.example.org); required when email is enabled")
            String host,
            @Doc("SMTP port; 0 = the usual one (465 with tls, 587 with starttls, 25 with none)")
            int port,
            @Doc("tls (port 465), starttls (port 587) or none (only to a loopback host)")
            Security security,
            @Doc("SMTP user name; not set = the IMAP user name")
            String username,
            @Doc("SMTP password; not set = the IMAP password; with security none and neither SMTP key set, no login (a local relay)")
            @EnvOverride({"EMAIL_SMTP_PASSWORD"})
            Secret password) {
        public Smtp {
            security = security == null ? Security.TLS : security;
            password = password == null ? Secret.NONE : password;
        }

        public static Smtp defaults() {
            return new Smtp(null, 0, Security.TLS, null, Secret.NONE);
        }

        int effectivePort() {
            return port != 0 ? port : switch (security) {
                case TLS -> 465;
                case STARTTLS -> 587;
                case NONE -> 25;
            };
        }
    }

    /**
     * How the adapter paces itself; not configured (tests shorten it).
     *
     * @param connectTimeout   connecting and each read of a command's answer (IMAP and SMTP)
     * @param idleRefresh      an IMAP IDLE is ended and started again this often (servers drop one after 30 minutes), which
     *                         also proves the connection alive
     * @param reconnectInitial first delay after a lost connection, growing to {@code reconnectMax} with jitter
     * @param reconnectMax     longest delay between two connection attempts
     * @param maxMessageBytes  a larger message is skipped unread, with a log line
     */
    public record Timing(Duration connectTimeout, Duration idleRefresh, Duration reconnectInitial, Duration reconnectMax,
            long maxMessageBytes) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(idleRefresh, "idleRefresh");
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
        }

        /** 20 s to connect or answer, IDLE renewed every 9 minutes, reconnect from 1 s to 5 min, mail up to 25 MB. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(20), Duration.ofMinutes(9), Duration.ofSeconds(1), Duration.ofMinutes(5), 25L * 1024 * 1024);
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public EmailSettings {
        imap = imap == null ? Imap.defaults() : imap;
        smtp = smtp == null ? Smtp.defaults() : smtp;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static EmailSettings defaults() {
        return new EmailSettings(false, null, Imap.defaults(), Smtp.defaults(), 60, false, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.IGNORE);
    }

    /** Enabled settings for {@code address} with these servers, every other key at its default. */
    public static EmailSettings of(String address, Imap imap, Smtp smtp) {
        EmailSettings d = defaults();
        return new EmailSettings(true, address, imap, smtp, d.pollSeconds, d.requireAuthenticationResults, d.allowedUsers, d.allowAllUsers,
                d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public EmailSettings withRequireAuthenticationResults(boolean required) {
        return new EmailSettings(enabled, address, imap, smtp, pollSeconds, required, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    public EmailSettings withAllowedUsers(List<String> users) {
        return new EmailSettings(enabled, address, imap, smtp, pollSeconds, requireAuthenticationResults, users, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    public EmailSettings withPollSeconds(int seconds) {
        return new EmailSettings(enabled, address, imap, smtp, seconds, requireAuthenticationResults, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(pollSeconds >= 1 && pollSeconds <= 3600, "poll_seconds", "must be 1..3600, was " + pollSeconds);
        check.require(address == null || Addresses.plausible(address), "address",
                "must be one mail address such as herald@example.org, was \"" + address + "\"");
        if (!enabled) {
            return;
        }
        check.require(address != null, "address", "is required when " + check.path("enabled") + " is true: the agent's mail address");
        ConfigChecks i = check.child("imap");
        i.require(imap.host() != null && !imap.host().isBlank(), "host", "is required when " + check.path("enabled") + " is true");
        i.require(imap.port() >= 0 && imap.port() <= 65535, "port", "must be 1..65535 (0 = the usual port), was " + imap.port());
        i.require(imap.password().isSet(), "password", "is required when " + check.path("enabled")
                + " is true; set password: ${EMAIL_IMAP_PASSWORD}");
        i.require(imap.security() != Security.NONE || loopback(imap.host()), "security",
                "none sends the password in clear and is allowed only to a loopback host (127.0.0.1, ::1, localhost), was host \""
                        + imap.host() + "\"; use tls or starttls");
        ConfigChecks s = check.child("smtp");
        s.require(smtp.host() != null && !smtp.host().isBlank(), "host", "is required when " + check.path("enabled") + " is true");
        s.require(smtp.port() >= 0 && smtp.port() <= 65535, "port", "must be 1..65535 (0 = the usual port), was " + smtp.port());
        s.require(smtp.security() != Security.NONE || loopback(smtp.host()), "security",
                "none is allowed only to a loopback host (127.0.0.1, ::1, localhost), was host \"" + smtp.host() + "\"; use tls or starttls");
        s.require(smtp.username() == null || smtp.password().isSet() || imap.password().isSet(), "password",
                "is required when " + s.path("username") + " is set");
    }

    /** True for a host name that can only be this machine. */
    static boolean loopback(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.equals("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+|\\[?[0-9a-f:]+\\]?")) {
            return false; // a name other than localhost may resolve anywhere: never looked up here
        }
        try {
            return InetAddress.getByName(h.replace("[", "").replace("]", "")).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /**
     * True when mail from {@code from} may get an answer: the sender is allowed here (or anyone is), or unknown senders get a
     * pairing code. A sender paired earlier while {@code unauthorized_dm} was {@code pair} counts as unknown here.
     */
    boolean mayAnswer(String from) {
        return allowAllUsers || unauthorizedDm == UnauthorizedDm.PAIR || allowedUsers.contains("*")
                || allowedUsers.stream().anyMatch(u -> u != null && u.strip().equalsIgnoreCase(from))
                || admins.stream().anyMatch(u -> u != null && u.strip().equalsIgnoreCase(from));
    }

    /** The IMAP login name. */
    String imapUser() {
        return imap.username() == null || imap.username().isBlank() ? address : imap.username();
    }

    String imapPassword() {
        return imap.password().reveal().orElseThrow(() -> new IllegalArgumentException("email - no IMAP password; set platforms.email.imap.password"));
    }

    /** The SMTP login (user, password), or null for none: SMTP's own, else the IMAP one when SMTP sets neither. */
    String[] smtpLogin() {
        if (smtp.username() != null && !smtp.username().isBlank()) {
            return new String[] {smtp.username(), smtp.password().reveal().orElse(imap.password().reveal().orElse(""))};
        }
        if (smtp.password().isSet()) {
            return new String[] {imapUser(), smtp.password().reveal().orElseThrow()};
        }
        if (imap.password().isSet() && smtp.security() != Security.NONE) {
            return new String[] {imapUser(), imap.password().reveal().orElseThrow()};
        }
        return null;
    }

    @Override
    public String toString() {
        return "email{address=" + address + ", imap=" + imap.host() + ":" + imap.effectivePort() + " " + imap.security()
                + ", smtp=" + smtp.host() + ":" + smtp.effectivePort() + " " + smtp.security() + ", passwords=****}";
    }
}
