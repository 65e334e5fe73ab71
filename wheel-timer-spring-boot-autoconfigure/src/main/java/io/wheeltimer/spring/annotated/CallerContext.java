package io.wheeltimer.spring.annotated;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.wheeltimer.spring.WheelTimeout;
import java.util.Map;
import org.slf4j.MDC;
import org.springframework.util.ClassUtils;

/**
 * The caller's thread-local context, captured when a {@link WheelTimeout @WheelTimeout} method is
 * called and put in place around the deferred run: the SLF4J MDC, and every
 * {@code ThreadLocalAccessor} of Micrometer context-propagation's {@code ContextRegistry} (the
 * current observation and so the trace, the security context, the application's own). Both
 * libraries are optional; what is missing is skipped.
 *
 * <p>Around the run the thread holds the caller's values only, and afterwards what it held before
 * (on a pooled thread: nothing), so nothing leaks from one run into the next.
 */
abstract class CallerContext {

    /** Restores what the thread held before. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /** Propagates nothing. */
    static final CallerContext NONE = new CallerContext() {
        @Override
        Scope restore() {
            return () -> {};
        }
    };

    private static final boolean MDC_PRESENT =
            ClassUtils.isPresent("org.slf4j.MDC", CallerContext.class.getClassLoader());
    private static final boolean CONTEXT_PROPAGATION_PRESENT =
            ClassUtils.isPresent("io.micrometer.context.ContextSnapshotFactory", CallerContext.class.getClassLoader());

    /** The calling thread's context now. */
    static CallerContext capture() {
        CallerContext mdc = MDC_PRESENT ? MdcContext.capture() : NONE;
        CallerContext registry = CONTEXT_PROPAGATION_PRESENT ? RegistryContext.capture() : NONE;
        return new CallerContext() {
            @Override
            Scope restore() {
                Scope registryScope = registry.restore();
                try {
                    Scope mdcScope = mdc.restore();
                    return () -> {
                        try {
                            mdcScope.close();
                        } finally {
                            registryScope.close();
                        }
                    };
                } catch (RuntimeException | Error e) {
                    registryScope.close();
                    throw e;
                }
            }
        };
    }

    /** Puts the captured context in place on the current thread until the scope is closed. */
    abstract Scope restore();

    /** Loaded only when SLF4J is on the class path. */
    private static final class MdcContext extends CallerContext {
        private final Map<String, String> captured;

        private MdcContext(Map<String, String> captured) {
            this.captured = captured;
        }

        static CallerContext capture() {
            return new MdcContext(MDC.getCopyOfContextMap());
        }

        @Override
        Scope restore() {
            Map<String, String> before = MDC.getCopyOfContextMap();
            set(captured);
            return () -> set(before);
        }

        private static void set(Map<String, String> values) {
            if (values == null || values.isEmpty()) {
                MDC.clear();
            } else {
                MDC.setContextMap(values);
            }
        }
    }

    /** Loaded only when io.micrometer:context-propagation is on the class path. */
    private static final class RegistryContext extends CallerContext {
        // clearMissing: around the run, accessors the caller had no value for hold none either.
        private static final ContextSnapshotFactory FACTORY =
                ContextSnapshotFactory.builder().clearMissing(true).build();

        private final ContextSnapshot snapshot;

        private RegistryContext(ContextSnapshot snapshot) {
            this.snapshot = snapshot;
        }

        static CallerContext capture() {
            return new RegistryContext(FACTORY.captureAll());
        }

        @Override
        Scope restore() {
            ContextSnapshot.Scope scope = snapshot.setThreadLocals();
            return scope::close;
        }
    }
}
