// Test-data generator for test_assign_javaorder.py (not part of kgroup; reimplements nothing).
// Puts pseudo-random String keys into java.util.HashMap / HashSet the ways Kafka's assignors
// build them and prints the iteration order the JVM produces. Regenerate with:
//   javac JavaHashOrder.java && java -cp . JavaHashOrder > java_hash_order.tsv   (Java 17)
import java.util.*;

public class JavaHashOrder {
    public static void main(String[] args) {
        Random r = new Random(7);
        String[] pool = {"consumer-", "c", "member-", "t\u00fc", "\uD83D\uDE00x", "orders", "t"};
        for (int t = 0; t < 60; t++) {
            int n = r.nextInt(40);
            int mode = r.nextInt(4);  // 0 new HashMap<>(), 1 new HashMap<>(cap), 2 HashSet(coll), 3 HashMap(map)
            int cap = r.nextInt(40);
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) keys.add(pool[r.nextInt(pool.length)] + r.nextInt(1000));
            Collection<String> res;
            if (mode == 0) { Map<String, Integer> m = new HashMap<>(); for (String k : keys) m.put(k, 1); res = m.keySet(); }
            else if (mode == 1) { Map<String, Integer> m = new HashMap<>(cap); for (String k : keys) m.put(k, 1); res = m.keySet(); }
            else if (mode == 2) { res = new HashSet<>(keys); }
            else { Map<String, Integer> src = new LinkedHashMap<>(); for (String k : keys) src.put(k, 1); res = new HashMap<>(src).keySet(); }
            System.out.println(mode + "\t" + cap + "\t" + String.join(" ", keys) + "\t" + String.join(" ", res));
        }
    }
}
