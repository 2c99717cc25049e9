package dev.herald.agent.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The egress guard's classifier and allow list, on a resolver stub: nothing here opens a connection or asks a
 * real DNS server, so non-loopback addresses appear only as data.
 */
class EgressPolicyTest {
    /** Names the stub knows; any other name is unknown. Records every lookup. */
    private final List<String> lookups = new ArrayList<>();
    private final Map<String, List<String>> dns = Map.of(
            "localhost", List.of("127.0.0.1", "::1"),
            "example.org", List.of("93.184.215.14"),
            "rebind.example", List.of("93.184.215.14", "10.0.0.7"),
            "metadata.example", List.of("169.254.169.254"),
            "intranet.example", List.of("10.1.2.3"),
            "mapped.example", List.of("::ffff:192.168.1.1"));

    private EgressPolicy policy(String... allow) {
        return new EgressPolicy(List.of(allow), name -> {
            lookups.add(name);
            List<String> answer = dns.get(name);
            if (answer == null) {
                throw new UnknownHostException(name);
            }
            List<InetAddress> out = new ArrayList<>();
            for (String a : answer) {
                out.add(IpLiteral.parse(a).orElseThrow());
            }
            return out;
        });
    }

    private String refusal(EgressPolicy policy, String host) {
        try {
            policy.admit(host);
        } catch (EgressRefused e) {
            return e.getMessage();
        }
        throw new AssertionError(host + " was admitted");
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "127.0.0.1, LOOPBACK", "127.0.0.2, LOOPBACK", "::1, LOOPBACK", "[::1], LOOPBACK",
            "10.0.0.1, PRIVATE", "172.16.5.4, PRIVATE", "172.31.255.255, PRIVATE", "192.168.1.1, PRIVATE", "fc00::1, PRIVATE",
            "fd12:3456::1, PRIVATE", "100.64.0.1, SHARED", "100.127.255.254, SHARED", "169.254.1.1, LINK_LOCAL", "fe80::1, LINK_LOCAL",
            "169.254.169.254, METADATA", "fd00:ec2::254, METADATA", "100.100.100.200, METADATA", "0.0.0.0, UNSPECIFIED",
            ":: , UNSPECIFIED", "224.0.0.1, MULTICAST", "239.255.255.250, MULTICAST", "ff02::1, MULTICAST",
            "255.255.255.255, BROADCAST", "0.1.2.3, RESERVED", "240.0.0.1, RESERVED", "2001:db8::1, RESERVED",
            "93.184.215.14, PUBLIC", "8.8.8.8, PUBLIC", "172.32.0.1, PUBLIC", "100.128.0.1, PUBLIC", "2606:4700::1111, PUBLIC"})
    void kind_ofEachAddressRange_isClassified(String address, AddressKind kind) {
        assertThat(AddressKind.of(IpLiteral.parse(address.strip()).orElseThrow())).isEqualTo(kind);
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "2130706433, 127.0.0.1", "0x7f.1, 127.0.0.1", "017700000001, 127.0.0.1", "127.1, 127.0.0.1", "0x7f000001, 127.0.0.1",
            "0177.0.0.1, 127.0.0.1", "127.0.1, 127.0.0.1", "0, 0.0.0.0", "[::ffff:127.0.0.1], 127.0.0.1", "::ffff:7f00:1, 127.0.0.1",
            "::127.0.0.1, 127.0.0.1", "::ffff:169.254.169.254, 169.254.169.254", "3232235777, 192.168.1.1"})
    void literal_unusualSpellings_areNormalisedBeforeTheCheck(String spelled, String canonical) {
        assertThat(IpLiteral.parse(spelled).orElseThrow().getHostAddress()).isEqualTo(canonical);
    }

    @ParameterizedTest
    @CsvSource({"example.org", "1.2.3.4.5", "0x", "09.1.1.1", "4294967296", "256.1.1.1", "1.2.65536", "::1::2", "1:2:3:4:5:6:7:8:9", "12345::"})
    void literal_namesAndMalformedNumbers_areNotAddresses(String text) {
        assertThat(IpLiteral.parse(text)).isEmpty();
    }

    @Test
    void admit_loopbackLiteral_isRefusedWithTheSentenceTheModelReads() {
        assertThat(refusal(policy(), "127.0.0.1"))
                .isEqualTo("127.0.0.1 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(lookups).isEmpty();
    }

    @Test
    void admit_decimalSpelling_isRefusedAsTheAddressItMeans() {
        assertThat(refusal(policy(), "2130706433"))
                .isEqualTo("127.0.0.1 is a loopback address (written 2130706433); add it to agent.http_allow to allow it");
        assertThat(refusal(policy(), "0x7f.1")).startsWith("127.0.0.1 is a loopback address");
        assertThat(refusal(policy(), "[::ffff:10.0.0.1]")).startsWith("10.0.0.1 is a private address");
        assertThat(lookups).isEmpty();
    }

    @Test
    void admit_metadataAndOtherNonPublicLiterals_areRefusedByKind() {
        assertThat(refusal(policy(), "169.254.169.254")).startsWith("169.254.169.254 is a cloud metadata address;");
        assertThat(refusal(policy(), "[fd00:ec2::254]")).isEqualTo("fd00:ec2::254 is a cloud metadata address; add it to agent.http_allow to allow it");
        assertThat(refusal(policy(), "[64:ff9b::a00:1]")).contains("is a private address");
        assertThat(refusal(policy(), "[2002:7f00:1::1]")).contains("is a loopback address");
        assertThat(refusal(policy(), "100.64.0.1")).startsWith("100.64.0.1 is a carrier-grade NAT address;");
    }

    @Test
    void admit_nameResolvingToLoopback_isRefusedNamingBothTheNameAndTheAddress() {
        assertThat(refusal(policy(), "localhost"))
                .isEqualTo("localhost resolves to 127.0.0.1, a loopback address; add localhost or 127.0.0.1 to agent.http_allow to allow it");
    }

    @Test
    void admit_nameWithOnePrivateAddressAmongPublicOnes_isRefusedWhole() {
        assertThat(refusal(policy(), "rebind.example")).startsWith("rebind.example resolves to 10.0.0.7, a private address;");
        assertThat(refusal(policy(), "metadata.example")).contains("169.254.169.254, a cloud metadata address");
        assertThat(refusal(policy(), "mapped.example")).contains("192.168.1.1, a private address");
    }

    @Test
    void admit_publicName_returnsTheResolvedAddressesAfterOneLookup() throws Exception {
        EgressPolicy policy = policy();

        assertThat(policy.admit("Example.ORG.")).extracting(InetAddress::getHostAddress).containsExactly("93.184.215.14");
        assertThat(lookups).containsExactly("example.org");
    }

    @Test
    void admit_unknownName_isRefusedAsUnresolvable() {
        assertThat(refusal(policy(), "nowhere.invalid")).isEqualTo("the host nowhere.invalid could not be resolved (no DNS record)");
    }

    @Test
    void admit_allowListedCidr_opensOnlyTheAddressesInside() throws Exception {
        EgressPolicy policy = policy("127.0.0.5/32", "10.0.0.0/8");

        assertThat(policy.admit("127.0.0.5")).extracting(InetAddress::getHostAddress).containsExactly("127.0.0.5");
        assertThat(policy.admit("intranet.example")).extracting(InetAddress::getHostAddress).containsExactly("10.1.2.3");
        assertThat(refusal(policy, "127.0.0.1")).startsWith("127.0.0.1 is a loopback address");
        assertThat(refusal(policy, "192.168.1.1")).startsWith("192.168.1.1 is a private address");
    }

    @Test
    void admit_allowListedName_opensThatNameWhateverItResolvesTo() throws Exception {
        EgressPolicy policy = policy("intranet.example");

        assertThat(policy.admit("INTRANET.example")).extracting(InetAddress::getHostAddress).containsExactly("10.1.2.3");
        assertThat(refusal(policy, "10.1.2.3")).startsWith("10.1.2.3 is a private address");
    }

    @Test
    void policy_badAllowEntries_failNamingTheEntry() {
        assertThatThrownBy(() -> policy("10.0.0.0/33")).hasMessageStartingWith("agent.http_allow - '10.0.0.0/33' is not a CIDR block");
        assertThatThrownBy(() -> policy("10/8")).hasMessageContaining("'10/8' is not a CIDR block");
        assertThatThrownBy(() -> policy("http://intranet")).hasMessageContaining("'http://intranet' is not a CIDR block");
        assertThatThrownBy(() -> policy("bad host")).hasMessage(
                "agent.http_allow - 'bad host' is neither a host name nor a CIDR block; write e.g. intranet.example or 10.0.0.0/8");
        assertThat(EgressPolicy.problem("fd00::/8")).isEmpty();
        assertThat(EgressPolicy.problem("127.0.0.5")).isEmpty();
    }

    @Test
    void cidr_containsComparesNormalisedAddresses() {
        Cidr block = Cidr.parse("192.168.0.0/16");

        assertThat(block.contains(IpLiteral.parse("::ffff:192.168.4.4").orElseThrow())).isTrue();
        assertThat(block.contains(IpLiteral.parse("192.169.0.1").orElseThrow())).isFalse();
        assertThat(block.toString()).isEqualTo("192.168.0.0/16");
        assertThat(Cidr.parse("10.9.8.7/8").toString()).isEqualTo("10.0.0.0/8");
    }

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource({"::1, ::1", "::, ::", "fd00:ec2:0:0:0:0:0:254, fd00:ec2::254", "1:0:0:2:0:0:0:3, 1:0:0:2::3", "1:2:3:4:5:6:7:8, 1:2:3:4:5:6:7:8",
            "fe80:0:0:0:0:0:0:1, fe80::1", "1:0:2:3:4:5:6:7, 1:0:2:3:4:5:6:7"})
    void text_writesIpv6Compressed(String address, String written) {
        assertThat(IpLiteral.text(IpLiteral.parse(address).orElseThrow())).isEqualTo(written);
    }
}
