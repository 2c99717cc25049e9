package dev.herald.platforms.feishu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hand-written pbbp2 codec against bytes worked out by hand from the protocol buffers encoding rules. */
class FeishuFrameTest {
    /** SeqID 1, LogID 2, service 3, method 1, headers [type=event], payload "{}". */
    static final String GOLDEN = "08011002180320012a0d0a047479706512056576656e7442027b7d";

    @Test
    void encode_writesTheFieldsInProtobufWireFormat() {
        FeishuFrame f = new FeishuFrame(1, 2, 3, FeishuFrame.DATA, List.of(new FeishuFrame.Header("type", "event")), "", "",
                "{}".getBytes(StandardCharsets.UTF_8), "");
        assertThat(HexFormat.of().formatHex(f.encode())).isEqualTo(GOLDEN);
    }

    @Test
    void decode_readsTheGoldenBytes_skipsUnknownFields_andLargeIdsSurvive() throws Exception {
        FeishuFrame f = FeishuFrame.decode(HexFormat.of().parseHex(GOLDEN + "f80601")); // field 111, varint 1: unknown, skipped
        assertThat(f.seqId()).isEqualTo(1);
        assertThat(f.logId()).isEqualTo(2);
        assertThat(f.service()).isEqualTo(3);
        assertThat(f.header("type")).isEqualTo("event");
        assertThat(new String(f.payload(), StandardCharsets.UTF_8)).isEqualTo("{}");

        FeishuFrame big = new FeishuFrame(Long.MAX_VALUE, 7_200_000_000_000L, 33554678, FeishuFrame.CONTROL, List.of(), "gzip", "json",
                new byte[0], "0000-log");
        FeishuFrame back = FeishuFrame.decode(big.encode());
        assertThat(back.seqId()).isEqualTo(Long.MAX_VALUE);
        assertThat(back.logId()).isEqualTo(7_200_000_000_000L);
        assertThat(back.payloadEncoding()).isEqualTo("gzip");
        assertThat(back.logIdNew()).isEqualTo("0000-log");
    }

    @Test
    void decode_refusesTruncatedAndWronglyTypedBytes_namingTheProblem() {
        assertThatThrownBy(() -> FeishuFrame.decode(HexFormat.of().parseHex("0801100218032001420a7b7d"))).isInstanceOf(FeishuFrame.Malformed.class)
                .hasMessageContaining("payload declares 10 bytes but 2 remain");
        assertThatThrownBy(() -> FeishuFrame.decode(HexFormat.of().parseHex("0aff"))).isInstanceOf(FeishuFrame.Malformed.class)
                .hasMessageContaining("SeqID has wire type 2");
        assertThatThrownBy(() -> FeishuFrame.decode(HexFormat.of().parseHex("08011002"))).isInstanceOf(FeishuFrame.Malformed.class)
                .hasMessageContaining("no method field");
        assertThatThrownBy(() -> FeishuFrame.decode(HexFormat.of().parseHex("2080"))).isInstanceOf(FeishuFrame.Malformed.class)
                .hasMessageContaining("cut off");
    }
}
