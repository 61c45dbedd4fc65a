from pathlib import Path

APP = Path("/app")
TSV = ('sku\tname\tqty\tprice\n'
 'D375-94\tPlastic Washer\t12\t1265.44\n'
 'C758-68\tRubber Rivet Mini\t40\t964.28\n'
 'B447-36\tSteel Valve\t3\t1346.66\n'
 'C797-61\tBrass Hinge\t2500\t1334.61\n'
 'B193-64\tNylon Bracket\t7\t1414.74\n'
 'C736-81\tOak Hinge\t150\t2138.80\n'
 'A510-87\tGlass Valve\t1200\t1008.65\n'
 'K131-92\tBrass Handle\t2500\t686.17\n'
 'C471-98\tGlass Spring Mini\t12\t952.92\n'
 'C623-83\tOak Hinge\t25\t86.25\n'
 'K126-38\tGlass Hinge\t1200\t269.49\n'
 'K325-32\tBrass Spring Pro\t40\t902.74\n'
 'K752-16\tNylon Gasket Pro\t40\t1248.99\n'
 'D345-31\tNylon Rivet\t9\t2009.67\n'
 'B721-10\tCopper Gasket XL\t150\t105.41\n'
 'B733-24\tPlastic Rivet\t0\t2431.90\n'
 'C906-95\tCopper Bracket (pack of 10)\t40\t1644.15\n'
 'C368-97\tNylon Washer\t1200\t2289.46\n'
 'A384-52\tNylon Handle\t150\t668.81\n'
 'A799-10\tSteel Washer\t10\t1102.35\n'
 'B347-35\tGlass Pulley\t150\t1495.25\n'
 'K836-43\tSteel Clamp\t3\t2362.31\n'
 'D908-35\tPlastic Gasket\t25\t1477.22\n'
 'B117-98\tOak Hinge\t3\t2387.34\n'
 'D647-35\tGlass Bracket\t9\t818.68\n'
 'C912-98\tNylon Valve\t9\t1401.01\n'
 'K817-96\tGlass Valve (pack of 10)\t12\t848.78\n'
 'A801-52\tOak Bracket\t10\t1824.42\n'
 'B877-96\tGlass Gasket Mini\t40\t1633.63\n'
 'D597-32\tSteel Valve\t9\t2318.60\n'
 'C199-38\tSteel Gasket\t9\t1805.29\n'
 'D403-38\tOak Rivet\t12\t426.08\n'
 'K575-59\tRubber Pulley\t0\t2180.67\n'
 'B517-78\tGlass Rivet\t2500\t137.46\n'
 'A667-83\tCopper Gasket\t0\t845.29\n'
 'D469-90\tCopper Washer Mini\t150\t353.06\n'
 'C606-15\tGlass Gasket\t2500\t1570.19\n'
 'C498-87\tPlastic Washer XL\t2500\t1595.65\n'
 'D522-64\tCopper Gasket\t25\t1291.43\n'
 'D509-33\tOak Handle\t3\t702.81\n'
 'K154-93\tPlastic Spring\t10\t2184.25\n'
 'B866-13\tCopper Hinge Mini\t9\t428.47\n'
 'B833-47\tRubber Washer\t150\t2260.62\n'
 'A721-23\tPlastic Pulley\t40\t257.74\n'
 'K106-93\tOak Clamp\t2500\t769.66\n'
 'D464-91\tGlass Clamp\t0\t1874.86\n'
 'C121-29\tNylon Gasket\t2500\t2087.64\n'
 'D661-61\tPlastic Bracket\t7\t913.84\n')
LOW = ['A667-83',
 'B117-98',
 'B193-64',
 'B447-36',
 'B733-24',
 'B866-13',
 'C199-38',
 'C912-98',
 'D345-31',
 'D464-91',
 'D509-33',
 'D597-32',
 'D647-35',
 'D661-61',
 'K575-59',
 'K836-43']


EXPECTED_ROWS = [line.split("\t") for line in TSV.splitlines()[1:]]


def rows():
    return (APP / "inventory.tsv").read_text().splitlines()


def test_header_and_row_count():
    got = rows()
    assert got[0] == "sku\tname\tqty\tprice"
    assert len(got) == len(TSV.splitlines())
    assert [line.split("\t")[0] for line in got[1:]] == [row[0] for row in EXPECTED_ROWS]


def test_no_report_furniture():
    # the lines after the header are the items, nothing else (every SKU in the report once)
    got = rows()
    bad = [r for r in got if "page" in r or "REPORT" in r or "\f" in r or not r.strip()]
    assert not bad, bad
    assert sorted(line.split("\t")[0] for line in got[1:]) == sorted(r[0] for r in EXPECTED_ROWS)


def test_names_trimmed_and_numbers_plain():
    # each item's name, quantity and price, by SKU (order and header aside)
    got = {}
    for line in rows()[1:]:
        fields = line.split("\t")
        assert len(fields) == 4, line
        got[fields[0]] = fields[1:]
    assert got == {sku: fields for sku, *fields in EXPECTED_ROWS}


def test_exact_tsv():
    assert rows() == TSV.splitlines()


def test_low_stock():
    assert (APP / "low_stock.txt").read_text().splitlines() == LOW
