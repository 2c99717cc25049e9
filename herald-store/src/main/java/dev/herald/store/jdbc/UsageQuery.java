package dev.herald.store.jdbc;

import dev.herald.core.turn.SenderUsage;
import dev.herald.core.turn.TurnStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link TurnStore#usage}: the turns and tokens of groups of senders, added up by the database. Each sender's started
 * turns since the window's start are reached through {@code turns_by_sender} (platform, user id, time received: schema
 * SQLite V19, PostgreSQL V15), one branch of an OR per sender, so the cost grows with those people's turns, not with the
 * table. The rows come back per sender and are added up per group here (a sender in two groups counts in both).
 */
public final class UsageQuery {
    private UsageQuery() {
    }

    /** The statement for {@code senders} senders (parameters: day start three times, then platform, user id, since per sender). */
    public static String sql(int senders) {
        if (senders < 1) {
            throw new IllegalArgumentException("store - a usage query needs a sender");
        }
        StringBuilder sb = new StringBuilder("""
                SELECT platform, user_id, COUNT(*) AS turns, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
                       SUM(CASE WHEN received_at >= ? THEN 1 ELSE 0 END) AS turns_today,
                       SUM(CASE WHEN received_at >= ? THEN input_tokens ELSE 0 END) AS input_today,
                       SUM(CASE WHEN received_at >= ? THEN output_tokens ELSE 0 END) AS output_today
                FROM turns WHERE state NOT IN ('RECEIVED', 'CANCELLED') AND (""");
        for (int i = 0; i < senders; i++) {
            sb.append(i == 0 ? "" : " OR ").append("(platform = ? AND user_id = ? AND received_at >= ?)");
        }
        return sb.append(") GROUP BY platform, user_id").toString();
    }

    static <C extends JdbcConn> Map<String, SenderUsage> usage(Transactions<C> tx, Map<String, List<SenderUsage.Sender>> groups,
            Instant dayStart, Instant since) {
        Objects.requireNonNull(groups, "groups");
        Objects.requireNonNull(dayStart, "dayStart");
        Objects.requireNonNull(since, "since");
        List<SenderUsage.Sender> senders = new ArrayList<>(new LinkedHashSet<>(groups.values().stream().flatMap(List::stream).toList()));
        Map<SenderUsage.Sender, SenderUsage> bySender = new HashMap<>();
        for (int from = 0; from < senders.size(); from += TurnStore.USAGE_SENDERS) {
            List<SenderUsage.Sender> chunk = senders.subList(from, Math.min(senders.size(), from + TurnStore.USAGE_SENDERS));
            List<Object> args = new ArrayList<>(List.of(Micros.of(dayStart), Micros.of(dayStart), Micros.of(dayStart)));
            for (SenderUsage.Sender s : chunk) {
                args.addAll(List.of(s.platform(), s.userId(), Micros.of(since)));
            }
            tx.read("model use of " + chunk.size() + " senders since " + since, c -> c.list(sql(chunk.size()), rs -> {
                bySender.put(new SenderUsage.Sender(rs.getString("platform"), rs.getString("user_id")), new SenderUsage(
                        rs.getLong("turns_today"), rs.getLong("input_today"), rs.getLong("output_today"), rs.getLong("turns"),
                        rs.getLong("input"), rs.getLong("output")));
                return null;
            }, args.toArray()));
        }
        Map<String, SenderUsage> out = new LinkedHashMap<>();
        groups.forEach((group, members) -> out.put(group, new LinkedHashSet<>(members).stream()
                .map(s -> bySender.getOrDefault(s, SenderUsage.NONE)).reduce(SenderUsage.NONE, SenderUsage::plus)));
        return out;
    }
}
