package dev.herald.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every report the gateway makes reaches every receiver of a fan-out (a new report not forwarded fails here). */
class MetricsFanOutTest {

    @Test
    void everyGatewayMetricsCall_reachesEachReceiverInOrder() throws Exception {
        List<String> calls = new ArrayList<>();
        GatewayMetrics first = recorder("first", calls);
        GatewayMetrics second = recorder("second", calls);
        GatewayMetrics both = MetricsFanOut.of(first, second);
        List<Method> reports = Arrays.stream(GatewayMetrics.class.getMethods()).filter(m -> !Modifier.isStatic(m.getModifiers())).toList();
        assertThat(reports).isNotEmpty();
        for (Method m : reports) {
            calls.clear();
            m.invoke(both, args(m));
            assertThat(calls).as(m.getName()).containsExactly("first." + m.getName(), "second." + m.getName());
        }
    }

    private static Object[] args(Method m) {
        return Arrays.stream(m.getParameterTypes()).map(t -> t == int.class ? (Object) 0 : t == long.class ? (Object) 0L
                : t == boolean.class ? (Object) false : null).toArray();
    }

    private static GatewayMetrics recorder(String name, List<String> calls) {
        return (GatewayMetrics) java.lang.reflect.Proxy.newProxyInstance(GatewayMetrics.class.getClassLoader(),
                new Class<?>[] {GatewayMetrics.class}, (proxy, method, a) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == a[0] : method.getName().equals("hashCode") ? 0 : name;
                    }
                    calls.add(name + "." + method.getName());
                    return null;
                });
    }
}
