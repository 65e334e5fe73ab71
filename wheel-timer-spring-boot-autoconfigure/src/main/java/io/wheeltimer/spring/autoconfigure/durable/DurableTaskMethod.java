package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimeoutHandler;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerTaskBeanPostProcessor.Found;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
 */
final class DurableTaskMethod implements DurableTimeoutHandler {

    private final Supplier<Found> found;
    private final BeanFactory beanFactory;
    private final TaskRunObserver observer;

    /** The method as the bean's class (a proxy's, maybe) exposes it. */
    private volatile Resolved resolved;

    DurableTaskMethod(Supplier<Found> found, BeanFactory beanFactory, TaskRunObserver observer) {
        this.found = found;
        this.beanFactory = beanFactory;
        this.observer = observer;
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
        Object argument = method.method().getParameterTypes()[0] == String.class ? timeout.key() : timeout;
        observer.observe(method.description(), () -> invoke(invocable, bean, argument));
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

    private static void invoke(Method invocable, Object bean, Object argument) throws Exception {
        try {
            invocable.invoke(bean, argument);
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
}
