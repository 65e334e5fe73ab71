package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.DurableDataCodec;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimeoutHandler;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerTaskBeanPostProcessor.Found;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ReflectionUtils;

/**
 * The handler of one task: its {@link io.wheeltimer.jdbc.DurableTimerTask @DurableTimerTask} method.
 * The bean is looked up by name when a timeout fires, so the call goes through its proxy
 * ({@code @Transactional} and the like apply) and a lazy bean is created only then. The method is
 * the one last found for the task: found by the bean's declared type when the timer was built, then
 * on the bean's own class once it was created.
 *
 * <p>A method that takes {@code (String key, T data)} gets the timeout's data: as stored when
 * {@code T} is {@code String}, else read into {@code T} (as the method declares it, generics
 * included) by the timer's {@link DurableDataCodec}; {@code null} when none was stored. Data that
 * cannot be read fails the run, as a handler that throws does, with an error that names the task,
 * the key and the type: it is retried, then given up, never dropped.
 */
final class DurableTaskMethod implements DurableTimeoutHandler {

    private final Supplier<Found> found;
    private final BeanFactory beanFactory;
    private final TaskRunObserver observer;
    private final DurableDataCodec codec;

    /** The method as the bean's class (a proxy's, maybe) exposes it. */
    private volatile Resolved resolved;

    /**
     * @param codec reads the data of a method that takes it as another type than {@code String}; null
     *     when the application has none
     * @throws IllegalStateException naming the method when it takes data that no codec can read
     */
    DurableTaskMethod(
            Supplier<Found> found, BeanFactory beanFactory, TaskRunObserver observer, DurableDataCodec codec) {
        this.found = found;
        this.beanFactory = beanFactory;
        this.observer = observer;
        this.codec = codec;
        Found method = found.get();
        Class<?>[] parameters = method.method().getParameterTypes();
        if (codec == null && parameters.length == 2 && parameters[1] != String.class) {
            throw new IllegalStateException("@DurableTimerTask method " + method.description() + " takes its data as "
                    + method.method().getGenericParameterTypes()[1].getTypeName() + ", but the durable timer has no"
                    + " data codec (with Spring Boot, the application's Jackson JsonMapper), so it can read data"
                    + " only as a String; add Jackson (spring-boot-starter-json) or a DurableDataCodec bean, or take"
                    + " the data as String");
        }
    }

    /**
     * The method as errors and observations name it: the user's class (not the proxy's), the method
     * and its simple parameter type names, e.g. {@code com.example.Orders.cancelIfUnpaid(String)}.
     */
    static String describe(Method method, Class<?> userClass) {
        return userClass.getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    @Override
    public void handle(DurableTimeout timeout) throws Exception {
        Found method = found.get();
        Object bean = beanFactory.getBean(method.beanName());
        Method invocable = invocable(method, bean.getClass());
        observer.observe(method.description(), () -> invoke(invocable, bean, arguments(method.method(), timeout)));
    }

    /** What the method takes: the key, the timeout, or the key and the data read into its type. */
    private Object[] arguments(Method method, DurableTimeout timeout) {
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length == 1) {
            return new Object[] {parameters[0] == String.class ? timeout.key() : timeout};
        }
        return new Object[] {timeout.key(), data(method.getGenericParameterTypes()[1], parameters[1], timeout)};
    }

    private Object data(Type type, Class<?> rawType, DurableTimeout timeout) {
        String text = timeout.data();
        if (text == null) {
            if (rawType.isPrimitive()) {
                throw new UnreadableDataException(
                        timeout,
                        type,
                        "no data was scheduled with it, and a " + rawType.getName()
                                + " cannot be null; take the wrapper type to accept none",
                        null);
            }
            return null;
        }
        if (rawType == String.class) {
            return text;
        }
        try {
            return codec.read(text, type);
        } catch (RuntimeException e) {
            throw new UnreadableDataException(timeout, type, e.getMessage(), e);
        }
    }

    /**
     * The method to call on a bean of {@code type}: on a JDK proxy, the interface's method. Fails,
     * naming the method, when the proxy cannot delegate it (a private method of a proxied class).
     */
    private Method invocable(Found method, Class<?> type) {
        Resolved known = resolved;
        if (known != null && known.found == method && known.type == type) {
            return known.method;
        }
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method.method(), type);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "@DurableTimerTask method " + method.description() + " of bean '" + method.beanName()
                            + "' cannot be called through its proxy: " + e.getMessage(),
                    e);
        }
        ReflectionUtils.makeAccessible(invocable);
        resolved = new Resolved(method, type, invocable);
        return invocable;
    }

    private static void invoke(Method invocable, Object bean, Object[] arguments) throws Exception {
        try {
            invocable.invoke(bean, arguments);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return found.get().description();
    }

    private record Resolved(Found found, Class<?> type, Method method) {}

    /** The data of a timeout that its handler method cannot take: the run fails, and is retried. */
    static final class UnreadableDataException extends IllegalStateException {

        UnreadableDataException(DurableTimeout timeout, Type type, String reason, Throwable cause) {
            super(
                    "The data of the durable timeout of task '" + timeout.task() + "' for key '" + timeout.key()
                            + "' cannot be read as " + type.getTypeName() + ": " + reason,
                    cause);
        }
    }
}
