package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

/**
 * What the tests of the annotations share: a record of the calls that ran, the context's beans
 * they drive, and startup-failure messages.
 */
final class WheelTimeoutFixtures {

    private WheelTimeoutFixtures() {}

    /** One run of an annotated method: which, with what arguments, on which thread. */
    record Call(String method, List<Object> args, String thread) {}

    /** The runs of annotated methods, in order; a bean, so that the user beans can record into it. */
    static final class Calls {
        private final List<Call> list = new CopyOnWriteArrayList<>();

        void record(String method, Object... args) {
            list.add(new Call(method, List.of(args), Thread.currentThread().getName()));
        }

        List<Call> all() {
            return List.copyOf(list);
        }

        List<String> methods() {
            return list.stream().map(Call::method).toList();
        }
    }

    /** The context's {@link Calls} bean. */
    static Calls calls(AssertableApplicationContext context) {
        return context.getBean(Calls.class);
    }

    /** The context's {@link ManualTicker} bean, which drives its timers' time. */
    static ManualTicker ticker(AssertableApplicationContext context) {
        return context.getBean(ManualTicker.class);
    }

    /** The context failed to start, and the messages of the failure contain every fragment. */
    static void assertStartupFailsNaming(AssertableApplicationContext context, String... fragments) {
        assertThat(context).hasFailed();
        assertThat(messages(context.getStartupFailure())).contains(fragments);
    }

    /** The messages of a failure and of all its causes, one a line. */
    static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        return all.toString();
    }
}
