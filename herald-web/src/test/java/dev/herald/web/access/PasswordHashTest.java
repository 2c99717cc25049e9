package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Argon2id password hashes: salted per hash, verified against their own parameters, and nothing else ever matches. */
class PasswordHashTest {

    @Test
    void hash_isArgon2idWithItsParametersAndANewSaltEachTime_andOnlyThePasswordMatches() {
        String a = PasswordHash.hash("correct horse battery");
        String b = PasswordHash.hash("correct horse battery");
        assertThat(a).startsWith("$argon2id$v=19$m=19456,t=2,p=1$").isNotEqualTo(b);
        assertThat(PasswordHash.matches("correct horse battery", a)).isTrue();
        assertThat(PasswordHash.matches("correct horse battery", b)).isTrue();
        assertThat(PasswordHash.matches("correct horse batterx", a)).isFalse();
        assertThat(PasswordHash.matches("", a)).isFalse();
    }

    @Test
    void storedStringsThatAreNoSuchHash_orAskForHugeCosts_neverMatch() {
        String good = PasswordHash.hash("correct horse battery");
        String tail = good.substring(good.indexOf("$", 25));
        for (String bad : new String[] {"", "correct horse battery", "$argon2i$v=19$m=19456,t=2,p=1" + tail,
                "$argon2id$v=19$m=9999999,t=2,p=1" + tail, "$argon2id$v=19$m=19456,t=99,p=1" + tail, good + "x", good.replace("$v=19", "")}) {
            assertThat(PasswordHash.matches("correct horse battery", bad)).as(bad).isFalse();
        }
    }

    @Test
    void passwordsOutsideTheLimits_areRefusedSayingWhy() {
        assertThatThrownBy(() -> PasswordHash.hash("short")).hasMessage("a password is 8 to 256 characters, this one has 5");
        assertThatThrownBy(() -> PasswordHash.hash("x".repeat(257))).hasMessageContaining("this one has 257");
        assertThat(PasswordHash.matches("x".repeat(10_000), PasswordHash.hash("long enough"))).isFalse();
    }
}
