package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The invitation kept in an account's password column: its code only, until it expires, and never a password. */
class InvitationsTest {
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");

    @Test
    void theCodeTakesTheInvitation_untilItExpires_andNothingElseDoes() {
        Invitations.Invitation inv = Invitations.create(NOW);
        Account dan = new Account("dan", Role.USER, inv.passwordHash(), false, NOW, 0);

        assertThat(dan.invited()).isTrue();
        assertThat(inv.link("dan")).startsWith("/#invite=dan.").endsWith(inv.code());
        assertThat(inv.passwordHash()).doesNotContain(inv.code());
        assertThat(Invitations.expiresAt(dan)).isEqualTo(NOW.plus(Invitations.LIFETIME));
        assertThat(Invitations.matches(dan, inv.code(), NOW.plusSeconds(60))).isTrue();
        assertThat(Invitations.matches(dan, inv.code(), NOW.plus(Invitations.LIFETIME))).as("expired").isFalse();
        assertThat(Invitations.matches(dan, inv.code() + "x", NOW)).isFalse();
        assertThat(Invitations.matches(dan, "", NOW)).isFalse();
        assertThat(Invitations.matches(dan, null, NOW)).isFalse();
        assertThat(Invitations.matches(dan, Invitations.create(NOW).code(), NOW)).as("another invitation's code").isFalse();
        assertThat(PasswordHash.matches(inv.code(), inv.passwordHash())).as("no password signs in an invited account").isFalse();
    }

    @Test
    void anAccountWithAPassword_orABrokenStoredInvitation_takesNoCode() {
        Invitations.Invitation inv = Invitations.create(NOW);
        Account withPassword = new Account("eve", Role.USER, PasswordHash.hash("eve's long password"), false, NOW, 0);
        assertThat(withPassword.invited()).isFalse();
        assertThat(Invitations.matches(withPassword, inv.code(), NOW)).isFalse();
        assertThat(Invitations.expiresAt(withPassword)).isNull();

        Account broken = new Account("bea", Role.USER, Account.INVITED + "not-a-hash$soon", false, NOW, 0);
        assertThat(Invitations.matches(broken, inv.code(), NOW)).isFalse();
        assertThat(Invitations.expiresAt(broken)).isNull();
    }
}
