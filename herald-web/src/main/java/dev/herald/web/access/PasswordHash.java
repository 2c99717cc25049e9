package dev.herald.web.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Passwords of web accounts, hashed with Argon2id (BouncyCastle) and kept as the PHC string
 * {@code $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>} (unpadded base64), so a hash made with other
 * parameters still verifies after they change. Parameters: 19 MiB, 2 passes, 1 lane (OWASP's first Argon2id choice),
 * a random 16-byte salt per hash, a 32-byte tag. A check compares the tags in constant time; a stored string that is
 * not such a hash never matches. A password is 8 to {@value #MAX_LENGTH} characters.
 */
public final class PasswordHash {
    public static final int MIN_LENGTH = 8;
    /** Longer passwords are refused: they only cost the server time. */
    public static final int MAX_LENGTH = 256;
    static final int MEMORY_KIB = 19 * 1024;
    static final int PASSES = 2;
    static final int LANES = 1;
    private static final int SALT_BYTES = 16;
    private static final int TAG_BYTES = 32;
    /** Stored parameters beyond these are refused rather than computed (a hostile row must not cost gigabytes). */
    private static final int MAX_MEMORY_KIB = 256 * 1024;
    private static final int MAX_PASSES = 10;
    private static final Pattern PHC = Pattern.compile(
            "\\$argon2id\\$v=19\\$m=(\\d{1,7}),t=(\\d{1,2}),p=(\\d{1,2})\\$([A-Za-z0-9+/]{16,64})\\$([A-Za-z0-9+/]{16,128})");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private PasswordHash() {
    }

    /** A hash of {@code password} with a new salt; refuses a password too short or too long, saying why. */
    public static String hash(String password) {
        check(password);
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        byte[] tag = argon2(password, salt, MEMORY_KIB, PASSES, LANES, TAG_BYTES);
        return "$argon2id$v=19$m=" + MEMORY_KIB + ",t=" + PASSES + ",p=" + LANES + "$" + B64.encodeToString(salt) + "$"
                + B64.encodeToString(tag);
    }

    /** Refuses a password no account may have: shorter than {@value #MIN_LENGTH} or longer than {@value #MAX_LENGTH} characters. */
    public static void check(String password) {
        if (password == null || password.length() < MIN_LENGTH || password.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a password is " + MIN_LENGTH + " to " + MAX_LENGTH + " characters, this one has "
                    + (password == null ? 0 : password.length()));
        }
    }

    /** Whether {@code stored} is a password's hash at all (not the marker of an invited or single sign-on account). */
    public static boolean isHash(String stored) {
        return stored != null && PHC.matcher(stored).matches();
    }

    /** Whether {@code password} is the one {@code stored} was made from; false for anything that is not such a hash. */
    public static boolean matches(String password, String stored) {
        if (password == null || stored == null || password.length() > MAX_LENGTH) {
            return false;
        }
        Matcher m = PHC.matcher(stored);
        if (!m.matches()) {
            return false;
        }
        int memory = Integer.parseInt(m.group(1));
        int passes = Integer.parseInt(m.group(2));
        int lanes = Integer.parseInt(m.group(3));
        if (memory < 8 * lanes || memory > MAX_MEMORY_KIB || passes < 1 || passes > MAX_PASSES || lanes < 1) {
            return false;
        }
        byte[] salt;
        byte[] expected;
        try {
            salt = B64D.decode(m.group(4));
            expected = B64D.decode(m.group(5));
        } catch (IllegalArgumentException e) {
            return false;
        }
        byte[] actual = argon2(password, salt, memory, passes, lanes, expected.length);
        return MessageDigest.isEqual(expected, actual);
    }

    /** A hash that matches no password, to spend the same time on a sign-in for an unknown name. */
    static String decoy() {
        return DECOY;
    }

    private static final String DECOY = hashUnchecked("decoy password " + RANDOM.nextLong());

    private static String hashUnchecked(String password) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        return "$argon2id$v=19$m=" + MEMORY_KIB + ",t=" + PASSES + ",p=" + LANES + "$" + B64.encodeToString(salt) + "$"
                + B64.encodeToString(argon2(password, salt, MEMORY_KIB, PASSES, LANES, TAG_BYTES));
    }

    private static byte[] argon2(String password, byte[] salt, int memoryKib, int passes, int lanes, int tagBytes) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id).withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withSalt(salt).withMemoryAsKB(memoryKib).withIterations(passes).withParallelism(lanes).build();
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(params);
        byte[] pw = password.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[tagBytes];
        try {
            generator.generateBytes(pw, out);
        } finally {
            Arrays.fill(pw, (byte) 0);
        }
        return out;
    }
}
