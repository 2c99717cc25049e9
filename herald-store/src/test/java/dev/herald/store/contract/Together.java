package dev.herald.store.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/** Races for concurrency tests: many virtual threads released at the same moment. */
public final class Together {
    private Together() {
    }

    /** Runs {@code task(i)} on {@code n} virtual threads released together; returns the results in order. */
    public static <T> List<T> run(int n, IntFunction<T> task) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> futures = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    go.await();
                    return task.apply(index);
                }));
            }
            go.countDown();
            List<T> out = new ArrayList<>(n);
            for (Future<T> f : futures) {
                out.add(f.get());
            }
            return out;
        }
    }
}
